// Command trainboundary trains the local provider's topic boundary model
// on the QMSum train split and writes it as JSON (`make train`).
//
//	trainboundary [-data DIR] [-out FILE]
//
// DIR defaults to $MITHUB_QMSUM_DIR/train (or shared/data/qmsum/train
// beside the repository root); FILE defaults to standard output. The same
// meetings always give the same bytes.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/pkg/segment"
)

func main() {
	data := flag.String("data", "", "directory of QMSum meeting JSON files (default: the QMSum train split)")
	out := flag.String("out", "", "output file (default: standard output)")
	flag.Parse()
	if err := run(*data, *out); err != nil {
		fmt.Fprintln(os.Stderr, "trainboundary:", err)
		os.Exit(1)
	}
}

func run(data, out string) error {
	if data == "" {
		dir, err := qmsum.DataDir()
		if err != nil {
			return err
		}
		data = filepath.Join(dir, "train")
	}
	paths, err := filepath.Glob(filepath.Join(data, "*.json"))
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return fmt.Errorf("no meetings (*.json) in %s", data)
	}
	infos := make([]segment.MeetingInfo, len(paths))
	errs := make([]error, len(paths))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, p := range paths {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			m, err := qmsum.Load(p)
			if err != nil {
				errs[i] = err
				return
			}
			infos[i] = segment.PrepareMeeting(m)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	model, err := segment.TrainBoundaryModel(infos)
	if err != nil {
		return err
	}
	b, err := model.MarshalIndent()
	if err != nil {
		return err
	}
	if out == "" {
		_, err = os.Stdout.Write(b)
		return err
	}
	return os.WriteFile(out, b, 0o644)
}
