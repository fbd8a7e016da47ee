package store_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// sqlArg says which argument of a database call is the SQL text.
var sqlArg = map[string]int{
	"Exec":     1, // (ctx, sql, args...)
	"Query":    1,
	"QueryRow": 1,
	"Prepare":  2, // (ctx, name, sql)
	"Queue":    0, // pgx.Batch.Queue(sql, args...)
	// The store's helpers that pass their sql parameter on.
	"onePR": 2, // (ctx, what, sql, args...)
}

// sqlAllowed are the non-constant parts of SQL texts, each justified: they
// are identifiers or numbers that PostgreSQL cannot take as parameters.
var sqlAllowed = map[string]string{
	// DDL: a column type's modifier cannot be a parameter; dim is an int
	// checked against 1..MaxVectorDim before it gets here.
	"vector.go: strconv.Itoa(dim)": "vector dimension",
	// Built only from string constants, chosen by a bool.
	"topics.go: upsertTopicSQL(s.vectors().mode == VectorModePgvector)": "constant fragments",
	"topics.go: upsertTopicSQL(vc.mode == VectorModePgvector)":          "constant fragments",
	"vector.go: pgvectorQuery(meetingID != \"\")":                       "constant fragments",
	// A schema name the helper generated from random hex digits.
	"storetest.go: schema": "test schema name",
	// The migrations embedded in the binary (migrations/*.sql).
	"migrate.go: m.sql": "embedded migration",
	// onePR's sql parameter; its callers are checked (sqlArg).
	"prs.go: sql": "helper parameter",
}

// TestSQLOnlyThroughParameters fails when a query text given to Exec,
// Query, QueryRow, Prepare or Batch.Queue (or a store helper that passes
// it on) in pkg/store is built from
// anything but constants: values must travel as $n parameters. Identifiers
// quoted with pgx.Identifier.Sanitize and the justified exceptions in
// sqlAllowed are accepted.
func TestSQLOnlyThroughParameters(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("storetest/*.go")
	files = append(files, more...)
	fset := token.NewFileSet()
	parsed := map[string]*ast.File{}
	consts := map[string]map[string]bool{} // package dir → its constants
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		parsed[file] = f
		dir := filepath.Dir(file)
		if consts[dir] == nil {
			consts[dir] = map[string]bool{}
		}
		for name := range fileConsts(f) {
			consts[dir][name] = true
		}
	}
	calls := 0
	for file, f := range parsed {
		a := &sqlAuditor{fset: fset, file: filepath.Base(file), consts: consts[filepath.Dir(file)]}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				a.locals = localStrings(n)
			case *ast.CallExpr:
				sel, ok := n.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				i, ok := sqlArg[sel.Sel.Name]
				if !ok || i >= len(n.Args) {
					return true
				}
				calls++
				for _, bad := range a.nonConstant(n.Args[i], map[string]bool{}) {
					t.Errorf("%s: SQL built from %s; pass values as $n parameters", fset.Position(n.Pos()), bad)
				}
			}
			return true
		})
	}
	if calls < 20 {
		t.Fatalf("found only %d database calls; the audit is not looking at the store", calls)
	}
}

type sqlAuditor struct {
	fset   *token.FileSet
	file   string
	consts map[string]bool
	// locals maps a function's local string variables to every value
	// assigned to them.
	locals map[string][]ast.Expr
}

func (a *sqlAuditor) text(e ast.Expr) string {
	var b strings.Builder
	_ = printer.Fprint(&b, a.fset, e)
	return b.String()
}

// nonConstant returns the parts of e that are neither constants nor
// allowed.
func (a *sqlAuditor) nonConstant(e ast.Expr, seen map[string]bool) []string {
	if _, ok := sqlAllowed[a.file+": "+a.text(e)]; ok {
		return nil
	}
	switch e := e.(type) {
	case *ast.BasicLit:
		return nil
	case *ast.ParenExpr:
		return a.nonConstant(e.X, seen)
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return []string{a.text(e)}
		}
		return append(a.nonConstant(e.X, seen), a.nonConstant(e.Y, seen)...)
	case *ast.Ident:
		if a.consts[e.Name] {
			return nil
		}
		values, ok := a.locals[e.Name]
		if !ok || seen[e.Name] {
			return []string{e.Name}
		}
		seen[e.Name] = true
		var bad []string
		for _, v := range values {
			bad = append(bad, a.nonConstant(v, seen)...)
		}
		return bad
	case *ast.CallExpr:
		// pgx.Identifier{...}.Sanitize() quotes an identifier.
		if sel, ok := e.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Sanitize" {
			if lit, ok := sel.X.(*ast.CompositeLit); ok && strings.HasSuffix(a.text(lit.Type), "Identifier") {
				return nil
			}
		}
	}
	return []string{a.text(e)}
}

// fileConsts returns the names of the file's string constants.
func fileConsts(f *ast.File) map[string]bool {
	out := map[string]bool{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			for _, n := range s.(*ast.ValueSpec).Names {
				out[n.Name] = true
			}
		}
	}
	return out
}

// localStrings maps each variable of fn to the expressions assigned to it.
func localStrings(fn *ast.FuncDecl) map[string][]ast.Expr {
	out := map[string][]ast.Expr{}
	ast.Inspect(fn, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if len(n.Lhs) != len(n.Rhs) {
				for _, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						out[id.Name] = append(out[id.Name], &ast.Ident{Name: fmt.Sprintf("result of %s", id.Name)})
					}
				}
				return true
			}
			for i, l := range n.Lhs {
				if id, ok := l.(*ast.Ident); ok {
					rhs := n.Rhs[i]
					if n.Tok == token.ADD_ASSIGN {
						rhs = &ast.BinaryExpr{X: &ast.BasicLit{Kind: token.STRING, Value: `""`}, Op: token.ADD, Y: rhs}
					}
					out[id.Name] = append(out[id.Name], rhs)
				}
			}
		case *ast.ValueSpec:
			for i, id := range n.Names {
				if i < len(n.Values) {
					out[id.Name] = append(out[id.Name], n.Values[i])
				}
			}
		}
		return true
	})
	return out
}
