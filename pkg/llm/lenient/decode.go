package lenient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Decode extracts the JSON in a model's answer (see Extract) and decodes
// it into v with coercion (see Unmarshal).
func Decode[T any](text string, v *T) error {
	if v == nil {
		return errors.New("lenient: Decode into a nil pointer")
	}
	raw, err := Extract(text)
	if err != nil {
		return err
	}
	return Unmarshal(raw, v)
}

// Unmarshal decodes valid JSON into v, a non-nil pointer, coercing values
// of the wrong type where the intent is clear: numbers written as strings
// into integers and floats, numbers and bools into strings, "true" and
// "false" into bools, a single value where a slice is expected (a
// one-element slice) and a one-element array where a single value is
// expected. Struct fields are matched by json tag or name, exactly first,
// then case-insensitively; "-" fields and unknown keys are skipped. Types
// implementing json.Unmarshaler decode themselves. A value that cannot be
// coerced leaves its destination untouched and the rest is still decoded;
// the first such problem is returned as a *TypeError.
func Unmarshal(data []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("lenient: Unmarshal needs a non-nil pointer, got %T", v)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return fmt.Errorf("lenient: %w", err)
	}
	var c coercer
	c.set(rv.Elem(), x, "")
	return c.err
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// coercer converts a decoded JSON value (nil, bool, json.Number, string,
// []any, map[string]any) into a Go value and keeps the first failure.
type coercer struct {
	err error
}

func (c *coercer) fail(path string, x any, t reflect.Type) {
	if c.err == nil {
		c.err = &TypeError{Path: path, Value: describe(x), Type: t}
	}
}

func (c *coercer) set(dst reflect.Value, x any, path string) {
	if !dst.CanSet() {
		return
	}
	if dst.Kind() == reflect.Pointer {
		if x == nil {
			dst.SetZero()
			return
		}
		if dst.IsNil() {
			dst.Set(reflect.New(dst.Type().Elem()))
		}
		c.set(dst.Elem(), x, path)
		return
	}
	if dst.Addr().Type().Implements(unmarshalerType) {
		c.setUnmarshaler(dst, x, path)
		return
	}
	if x == nil {
		switch dst.Kind() {
		case reflect.Interface, reflect.Map, reflect.Slice:
			dst.SetZero()
		}
		return
	}
	if arr, ok := x.([]any); ok && dst.Kind() != reflect.Slice && dst.Kind() != reflect.Array && dst.Kind() != reflect.Interface {
		switch len(arr) {
		case 0:
		case 1:
			c.set(dst, arr[0], path)
		default:
			c.fail(path, x, dst.Type())
		}
		return
	}
	switch dst.Kind() {
	case reflect.Interface:
		if dst.NumMethod() != 0 {
			c.fail(path, x, dst.Type())
			return
		}
		dst.Set(reflect.ValueOf(plain(x)))
	case reflect.String:
		c.setString(dst, x, path)
	case reflect.Bool:
		c.setBool(dst, x, path)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		c.setInt(dst, x, path)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		c.setUint(dst, x, path)
	case reflect.Float32, reflect.Float64:
		c.setFloat(dst, x, path)
	case reflect.Slice, reflect.Array:
		c.setList(dst, x, path)
	case reflect.Map:
		c.setMap(dst, x, path)
	case reflect.Struct:
		c.setStruct(dst, x, path)
	default:
		c.fail(path, x, dst.Type())
	}
}

func (c *coercer) setUnmarshaler(dst reflect.Value, x any, path string) {
	b, err := json.Marshal(x)
	if err == nil {
		err = dst.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(b)
	}
	if err != nil {
		c.fail(path, x, dst.Type())
	}
}

func (c *coercer) setString(dst reflect.Value, x any, path string) {
	switch v := x.(type) {
	case string:
		dst.SetString(v)
	case json.Number:
		dst.SetString(string(v))
	case bool:
		dst.SetString(strconv.FormatBool(v))
	default:
		c.fail(path, x, dst.Type())
	}
}

func (c *coercer) setBool(dst reflect.Value, x any, path string) {
	switch v := x.(type) {
	case bool:
		dst.SetBool(v)
		return
	case string:
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true":
			dst.SetBool(true)
			return
		case "false":
			dst.SetBool(false)
			return
		}
	}
	c.fail(path, x, dst.Type())
}

func (c *coercer) setInt(dst reflect.Value, x any, path string) {
	s, ok := numberText(x)
	if !ok {
		c.fail(path, x, dst.Type())
		return
	}
	n, ok := parseInt(s)
	if !ok || dst.OverflowInt(n) {
		c.fail(path, x, dst.Type())
		return
	}
	dst.SetInt(n)
}

func (c *coercer) setUint(dst reflect.Value, x any, path string) {
	s, ok := numberText(x)
	if !ok {
		c.fail(path, x, dst.Type())
		return
	}
	n, ok := parseInt(s)
	if !ok || n < 0 || dst.OverflowUint(uint64(n)) {
		c.fail(path, x, dst.Type())
		return
	}
	dst.SetUint(uint64(n))
}

func (c *coercer) setFloat(dst reflect.Value, x any, path string) {
	s, ok := numberText(x)
	if !ok {
		c.fail(path, x, dst.Type())
		return
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || dst.OverflowFloat(f) {
		c.fail(path, x, dst.Type())
		return
	}
	dst.SetFloat(f)
}

// numberText returns the text of a number or of a string holding one.
func numberText(x any) (string, bool) {
	switch v := x.(type) {
	case json.Number:
		return string(v), true
	case string:
		s := strings.TrimSpace(v)
		return s, s != ""
	}
	return "", false
}

// parseInt reads an integer, also written as a float with no fraction
// ("3.0", "1e3").
func parseInt(s string) (int64, bool) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || f < math.MinInt64 || f >= math.MaxInt64 {
		return 0, false
	}
	return int64(f), true
}

// setList fills a slice or array; a single value becomes one element.
func (c *coercer) setList(dst reflect.Value, x any, path string) {
	arr, ok := x.([]any)
	if !ok {
		arr = []any{x}
	}
	n := len(arr)
	if dst.Kind() == reflect.Slice {
		dst.Set(reflect.MakeSlice(dst.Type(), n, n))
	} else {
		n = min(n, dst.Len())
	}
	for i := range n {
		c.set(dst.Index(i), arr[i], fmt.Sprintf("%s[%d]", path, i))
	}
}

func (c *coercer) setMap(dst reflect.Value, x any, path string) {
	m, ok := x.(map[string]any)
	if !ok {
		c.fail(path, x, dst.Type())
		return
	}
	t := dst.Type()
	if dst.IsNil() {
		dst.Set(reflect.MakeMapWithSize(t, len(m)))
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		key, ok := mapKey(k, t.Key())
		if !ok {
			c.fail(joinPath(path, k), k, t.Key())
			continue
		}
		elem := reflect.New(t.Elem()).Elem()
		c.set(elem, m[k], joinPath(path, k))
		dst.SetMapIndex(key, elem)
	}
}

func mapKey(k string, t reflect.Type) (reflect.Value, bool) {
	v := reflect.New(t).Elem()
	switch t.Kind() {
	case reflect.String:
		v.SetString(k)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(strings.TrimSpace(k), 10, 64)
		if err != nil || v.OverflowInt(n) {
			return v, false
		}
		v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		n, err := strconv.ParseUint(strings.TrimSpace(k), 10, 64)
		if err != nil || v.OverflowUint(n) {
			return v, false
		}
		v.SetUint(n)
	default:
		return v, false
	}
	return v, true
}

func (c *coercer) setStruct(dst reflect.Value, x any, path string) {
	m, ok := x.(map[string]any)
	if !ok {
		c.fail(path, x, dst.Type())
		return
	}
	fields := structFields(dst.Type())
	for _, k := range slices.Sorted(maps.Keys(m)) {
		f, ok := fields.lookup(k)
		if !ok {
			continue
		}
		if fv, ok := fieldByIndex(dst, f.index); ok {
			c.set(fv, m[k], joinPath(path, f.name))
		}
	}
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// field is a settable struct field under its JSON name.
type field struct {
	name  string
	index []int
}

type fieldSet struct {
	list  []field
	exact map[string]int
}

func (fs *fieldSet) lookup(key string) (field, bool) {
	if i, ok := fs.exact[key]; ok {
		return fs.list[i], true
	}
	for _, f := range fs.list {
		if strings.EqualFold(f.name, key) {
			return f, true
		}
	}
	return field{}, false
}

var fieldCache sync.Map // reflect.Type → *fieldSet

// structFields lists a struct's fields by JSON name, promoting the fields
// of embedded structs; a shallower field hides a deeper one of the same
// name.
func structFields(t reflect.Type) *fieldSet {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.(*fieldSet)
	}
	type level struct {
		t     reflect.Type
		index []int
	}
	fs := &fieldSet{exact: map[string]int{}}
	visited := map[reflect.Type]bool{}
	for current := []level{{t: t}}; len(current) > 0; {
		var next []level
		for _, l := range current {
			if visited[l.t] {
				continue
			}
			visited[l.t] = true
			for i := range l.t.NumField() {
				sf := l.t.Field(i)
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, _, _ := strings.Cut(tag, ",")
				index := append(slices.Clone(l.index), i)
				if sf.Anonymous && name == "" {
					ft := sf.Type
					if ft.Kind() == reflect.Pointer {
						if !sf.IsExported() {
							continue
						}
						ft = ft.Elem()
					}
					if ft.Kind() == reflect.Struct {
						next = append(next, level{t: ft, index: index})
						continue
					}
				}
				if !sf.IsExported() {
					continue
				}
				if name == "" {
					name = sf.Name
				}
				if _, taken := fs.exact[name]; !taken {
					fs.exact[name] = len(fs.list)
					fs.list = append(fs.list, field{name: name, index: index})
				}
			}
		}
		current = next
	}
	actual, _ := fieldCache.LoadOrStore(t, fs)
	return actual.(*fieldSet)
}

// fieldByIndex returns a nested field, allocating nil embedded pointers on
// the way.
func fieldByIndex(v reflect.Value, index []int) (reflect.Value, bool) {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				if !v.CanSet() {
					return reflect.Value{}, false
				}
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, true
}

// plain turns json.Number into float64 throughout, for interface targets.
func plain(x any) any {
	switch v := x.(type) {
	case json.Number:
		if f, err := v.Float64(); err == nil {
			return f
		}
		return string(v)
	case []any:
		for i := range v {
			v[i] = plain(v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = plain(v[k])
		}
	}
	return x
}

// describe names a JSON value for a TypeError.
func describe(x any) string {
	switch v := x.(type) {
	case nil:
		return "null"
	case bool:
		return "bool"
	case json.Number:
		return "number " + string(v)
	case string:
		if utf8.RuneCountInString(v) > 40 {
			v = string([]rune(v)[:40]) + "…"
		}
		return "string " + strconv.Quote(v)
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", x)
}
