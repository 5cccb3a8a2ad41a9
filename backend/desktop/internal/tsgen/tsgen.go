// Package tsgen writes TypeScript declarations of Go types as encoding/json marshals them, with their Go doc comments.
package tsgen

import (
	"context"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
)

var (
	timeType          = reflect.TypeFor[time.Time]()
	rawMessageType    = reflect.TypeFor[json.RawMessage]()
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// Generator collects Go types and writes one TypeScript declaration per named type reached from them: an interface
// per struct, a union of string literals per named string type whose constants its package declares.
type Generator struct {
	// Names gives Go named types their TypeScript names; the others keep their Go names. Two types with one name are
	// an error.
	Names map[reflect.Type]string
	// Overrides gives TypeScript types to Go types that marshal themselves (a MarshalJSON other than time.Time's).
	Overrides map[reflect.Type]string
	// Source reads doc comments and constants of Go packages; nil writes neither and no unions.
	Source *Source

	decls  map[string]*decl // by TypeScript name
	byType map[reflect.Type]string
	errs   []error
}

type decl struct {
	goType reflect.Type
	text   string // the declaration, written once its fields are known
}

// Add declares t (a struct or a named string type) and every named type its fields reach. It returns t's TypeScript
// name.
func (g *Generator) Add(t reflect.Type) string {
	return g.expr(t, false)
}

// Value is the TypeScript type of a value of type t as JSON carries it, null included where Go can hold nil (a
// result: a nil slice arrives as null); t and every named type it reaches are declared as Add does.
func (g *Generator) Value(t reflect.Type) string {
	return g.elem(t)
}

// Err is every problem met so far: a type JSON cannot carry, one that marshals itself without an override, two types
// with one TypeScript name.
func (g *Generator) Err() error {
	if len(g.errs) == 0 {
		return nil
	}
	msgs := make([]string, len(g.errs))
	for i, e := range g.errs {
		msgs[i] = e.Error()
	}
	slices.Sort(msgs)
	return fmt.Errorf("tsgen: %s", strings.Join(slices.Compact(msgs), "; "))
}

// Declarations returns the declarations of every type added, sorted by name, each preceded by its doc comment.
func (g *Generator) Declarations() (string, error) {
	if err := g.Err(); err != nil {
		return "", err
	}
	names := make([]string, 0, len(g.decls))
	for n := range g.decls {
		names = append(names, n)
	}
	slices.Sort(names)
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(g.decls[n].text)
	}
	return b.String(), nil
}

func (g *Generator) errorf(format string, args ...any) {
	g.errs = append(g.errs, fmt.Errorf(format, args...))
}

// name is the TypeScript name of a named Go type, checked against the names already given.
func (g *Generator) name(t reflect.Type) (string, bool) {
	if n, ok := g.byType[t]; ok {
		return n, false
	}
	n := g.Names[t]
	if n == "" {
		n = t.Name()
		if i := strings.IndexByte(n, '['); i >= 0 { // an instantiated generic type: Page[proofglass/x.T]
			n = n[:i]
		}
	}
	if g.byType == nil {
		g.byType, g.decls = map[reflect.Type]string{}, map[string]*decl{}
	}
	if d, ok := g.decls[n]; ok {
		g.errorf("%s and %s are both named %s in TypeScript: give one another name in Names", goName(d.goType), goName(t), n)
	}
	g.byType[t] = n
	g.decls[n] = &decl{goType: t}
	return n, true
}

func goName(t reflect.Type) string {
	if t.PkgPath() == "" {
		return t.String()
	}
	return t.PkgPath() + "." + t.Name()
}

// expr is the TypeScript type of a value of type t; asString is the ",string" tag option.
func (g *Generator) expr(t reflect.Type, asString bool) string {
	if ts, ok := g.Overrides[t]; ok {
		return ts
	}
	if t.Kind() == reflect.Pointer {
		return g.expr(t.Elem(), asString)
	}
	switch t {
	case timeType:
		return "string"
	case rawMessageType:
		return "unknown"
	}
	if t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType) {
		g.errorf("%s marshals itself (MarshalJSON): give it a TypeScript type in Overrides", goName(t))
		return "unknown"
	}
	if t.Implements(textMarshalerType) || reflect.PointerTo(t).Implements(textMarshalerType) {
		return "string"
	}
	switch t.Kind() {
	case reflect.Bool:
		if asString {
			return "string"
		}
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		if asString {
			return "string"
		}
		return "number"
	case reflect.String:
		if t.Name() == "" || t.PkgPath() == "" || g.Source == nil {
			return "string"
		}
		values := g.Source.constants(t.PkgPath(), t.Name())
		if len(values) == 0 {
			return "string"
		}
		n, isNew := g.name(t)
		if isNew {
			lits := make([]string, len(values))
			for i, v := range values {
				lits[i] = quote(v)
			}
			union := " " + strings.Join(lits, " | ")
			if len(union) > 100 { // one literal a line, as a long union reads best
				union = "\n  | " + strings.Join(lits, "\n  | ")
			}
			g.decls[n].text = Doc("", g.Source.typeDoc(t.PkgPath(), t.Name())) + fmt.Sprintf("export type %s =%s\n", n, union)
		}
		return n
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && !implementsAny(t.Elem()) {
			return "string" // base64
		}
		return arrayOf(g.elem(t.Elem()))
	case reflect.Array:
		el := g.elem(t.Elem())
		if t.Len() > 16 {
			return arrayOf(el)
		}
		items := make([]string, t.Len())
		for i := range items {
			items[i] = el
		}
		return "[" + strings.Join(items, ", ") + "]"
	case reflect.Map:
		switch k := t.Key(); {
		case k.Kind() == reflect.String, implementsAny(k),
			k.Kind() >= reflect.Int && k.Kind() <= reflect.Uintptr:
		default:
			g.errorf("%s: JSON cannot carry a map keyed by %s", t, k)
		}
		return "Record<string, " + g.elem(t.Elem()) + ">"
	case reflect.Interface:
		return "unknown"
	case reflect.Struct:
		if t.Name() == "" {
			return g.object(t, "")
		}
		n, isNew := g.name(t)
		if isNew {
			var doc string
			if g.Source != nil {
				doc = g.Source.typeDoc(t.PkgPath(), t.Name())
			}
			g.decls[n].text = Doc("", doc) + "export interface " + n + " " + g.object(t, "") + "\n"
		}
		return n
	}
	g.errorf("%s: JSON cannot carry a %s", t, t.Kind())
	return "unknown"
}

func implementsAny(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return t.Implements(marshalerType) || t.Implements(textMarshalerType) || p.Implements(marshalerType) || p.Implements(textMarshalerType)
}

// elem is the type of an element of a slice, array or map: null where Go can hold nil.
func (g *Generator) elem(t reflect.Type) string {
	s := g.expr(t, false)
	if nullable(t) {
		s += " | null"
	}
	return s
}

func arrayOf(el string) string {
	if strings.ContainsAny(el, " |&") {
		return "(" + el + ")[]"
	}
	return el + "[]"
}

// nullable reports whether JSON can carry a Go value of type t as null (nil).
func nullable(t reflect.Type) bool {
	if t == rawMessageType || t.Kind() == reflect.Interface {
		return false // unknown already includes null
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map:
		return true
	}
	return false
}

// field is one JSON property of a struct, after embedding and tags.
type field struct {
	name     string
	index    []int
	tagged   bool
	optional bool
	typ      reflect.Type
	asString bool
	doc      string
}

// object is the TypeScript object type of struct t's JSON properties, indented by indent.
func (g *Generator) object(t reflect.Type, indent string) string {
	fs := g.fields(t, nil, false)
	var b strings.Builder
	b.WriteString("{\n")
	for _, f := range fs {
		b.WriteString(Doc(indent+"  ", f.doc))
		var ts string
		if f.typ.Kind() == reflect.Struct && f.typ.Name() == "" && g.Overrides[f.typ] == "" {
			ts = g.object(f.typ, indent+"  ")
		} else {
			ts = g.expr(f.typ, f.asString)
		}
		opt := ""
		if f.optional {
			opt = "?"
		} else if nullable(f.typ) {
			ts += " | null"
		}
		fmt.Fprintf(&b, "%s  %s%s: %s\n", indent, propName(f.name), opt, ts)
	}
	b.WriteString(indent + "}")
	return b.String()
}

// fields lists t's JSON properties in encoding/json's order and with its rules: json:"-" and unexported fields are
// left out, an untagged embedded struct's properties are promoted (optional when it is embedded by pointer, which
// can be nil), and among properties of one name the shallowest wins, then the tagged one; a tie leaves out all of them.
func (g *Generator) fields(t reflect.Type, index []int, viaPointer bool) []field {
	var all []field
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := sf.Type
		idx := append(slices.Clone(index), i)
		if sf.Anonymous {
			et := ft
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if !sf.IsExported() && et.Kind() != reflect.Struct {
				continue
			}
			if name == "" && et.Kind() == reflect.Struct && g.Overrides[et] == "" && et != timeType && !implementsAny(et) {
				all = append(all, g.fields(et, idx, viaPointer || ft.Kind() == reflect.Pointer)...)
				continue
			}
		} else if !sf.IsExported() {
			continue
		}
		f := field{name: name, index: idx, tagged: name != "", typ: ft}
		if f.name == "" {
			f.name = sf.Name
		}
		for _, o := range strings.Split(opts, ",") {
			switch o {
			case "omitzero":
				f.optional = true
			case "omitempty":
				f.optional = f.optional || emptiable(ft)
			case "string":
				switch ft.Kind() {
				case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint,
					reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr, reflect.Float32,
					reflect.Float64, reflect.String:
					f.asString = true
				}
			}
		}
		f.optional = f.optional || viaPointer
		if g.Source != nil {
			f.doc = g.Source.fieldDoc(t.PkgPath(), t.Name(), sf.Name)
		}
		all = append(all, f)
	}
	if index != nil {
		return all // the caller, one level up, settles names
	}
	return dominant(all)
}

// dominant keeps, for each name, the one property encoding/json marshals, in the order of the Go fields.
func dominant(all []field) []field {
	byName := map[string][]field{}
	for _, f := range all {
		byName[f.name] = append(byName[f.name], f)
	}
	var out []field
	for _, fs := range byName {
		depth := slices.MinFunc(fs, func(a, b field) int { return len(a.index) - len(b.index) })
		var top []field
		for _, f := range fs {
			if len(f.index) == len(depth.index) {
				top = append(top, f)
			}
		}
		if len(top) > 1 {
			var tagged []field
			for _, f := range top {
				if f.tagged {
					tagged = append(tagged, f)
				}
			}
			top = tagged
		}
		if len(top) == 1 {
			out = append(out, top[0])
		}
	}
	slices.SortFunc(out, func(a, b field) int { return slices.Compare(a.index, b.index) })
	return out
}

// emptiable reports whether omitempty can leave out a value of type t (a struct never is empty to encoding/json).
func emptiable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Struct:
		return false
	case reflect.Array:
		return t.Len() == 0
	}
	return true
}

// propName is a property name, quoted when it is not an identifier.
func propName(s string) string {
	for i, r := range s {
		if !(r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return quote(s)
		}
	}
	if s == "" {
		return "''"
	}
	return s
}

func quote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`).Replace(s) + "'"
}

// Doc is text (a Go doc comment's text) as a TSDoc comment at indent, or "" when text is empty.
func Doc(indent, text string) string {
	text = strings.TrimSpace(strings.ReplaceAll(text, "*/", "*\\/"))
	if text == "" {
		return ""
	}
	lines := strings.Split(text, "\n")
	if len(lines) == 1 {
		return indent + "/** " + lines[0] + " */\n"
	}
	var b strings.Builder
	b.WriteString(indent + "/**\n")
	for _, l := range lines {
		b.WriteString(strings.TrimRight(indent+" * "+l, " ") + "\n")
	}
	b.WriteString(indent + " */\n")
	return b.String()
}

var (
	errorType   = reflect.TypeFor[error]()
	contextType = reflect.TypeFor[context.Context]()
)

// A BoundMethod is one method Wails binds: an exported method of a bound service (a struct pointer), called from
// the window as window.go.<package>.<Service>.<Name>(...).
type BoundMethod struct {
	Service reflect.Type // the struct type
	Name    string
	In      []reflect.Type // the arguments, the receiver and a context.Context left out
	Out     reflect.Type   // the one result besides error; nil when there is none
}

// Methods lists the bound methods of the given services, by service then method name (reflect's order). A method
// with more than one result besides error is an error, as Wails cannot return it.
func Methods(services ...any) ([]BoundMethod, error) {
	var out []BoundMethod
	for _, s := range services {
		t := reflect.TypeOf(s)
		for i := range t.NumMethod() {
			m := t.Method(i)
			bm := BoundMethod{Service: t.Elem(), Name: m.Name}
			for j := 1; j < m.Type.NumIn(); j++ { // 0 is the receiver
				if in := m.Type.In(j); in != contextType {
					bm.In = append(bm.In, in)
				}
			}
			for j := range m.Type.NumOut() {
				switch o := m.Type.Out(j); {
				case o == errorType:
				case bm.Out != nil:
					return nil, fmt.Errorf("%s.%s returns two values besides error, which Wails cannot bind", t.Elem().Name(), m.Name)
				default:
					bm.Out = o
				}
			}
			out = append(out, bm)
		}
	}
	return out, nil
}

// Bound lists the types the window exchanges with the given bound services (Wails binds the exported methods of a
// struct pointer): every argument and result type of their exported methods, error and context.Context left out,
// in method order without repeats. Adding them to a Generator covers a new bound method without listing its types.
func Bound(services ...any) []reflect.Type {
	var out []reflect.Type
	seen := map[reflect.Type]bool{}
	add := func(t reflect.Type) {
		if t != errorType && t != contextType && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	for _, s := range services {
		t := reflect.TypeOf(s)
		for i := range t.NumMethod() {
			m := t.Method(i).Type
			for j := 1; j < m.NumIn(); j++ { // 0 is the receiver
				add(m.In(j))
			}
			for j := range m.NumOut() {
				add(m.Out(j))
			}
		}
	}
	return out
}
