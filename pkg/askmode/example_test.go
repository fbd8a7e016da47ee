package askmode_test

import (
	"fmt"

	"github.com/mithub/mithub/pkg/askmode"
)

func ExampleParse() {
	m, err := askmode.Parse("")
	fmt.Println(m, err)
	m, err = askmode.Parse("catch_up")
	fmt.Println(m, err)
	_, err = askmode.Parse("summary")
	fmt.Println(err)
	// Output:
	// answer <nil>
	// catch_up <nil>
	// mode must be one of answer, catch_up, not "summary"
}

func ExampleModes() {
	for _, m := range askmode.Modes() {
		fmt.Println(m)
	}
	// Output:
	// answer
	// catch_up
}
