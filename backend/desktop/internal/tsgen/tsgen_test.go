package tsgen

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

type Inner struct {
	A int    `json:"a"`
	B string `json:"b,omitempty"`
}

type Embeds struct {
	Inner
	C bool `json:"c"`
}

type EmbedsPointer struct {
	*Inner
	C bool `json:"c"`
}

type EmbedsTagged struct {
	Inner `json:"inner"`
}

type Shadows struct {
	Inner
	A string `json:"a"` // shallower: wins over Inner.A
}

type Other struct {
	A int `json:"a"`
}

type TieA struct {
	Z int
	Y int `json:"y"`
}

type TieB struct {
	Z int
	W int
}

type Tie struct { // TieA.Z and TieB.Z tie at one depth, neither tagged: encoding/json drops both
	TieA
	TieB
}

type Nullable struct {
	P  *int               `json:"p"`
	PO *int               `json:"po,omitempty"`
	S  []string           `json:"s"`
	SO []string           `json:"so,omitempty"`
	M  map[string]float64 `json:"m"`
	MI map[int64]Inner    `json:"mi,omitempty"`
	SP []*Inner           `json:"sp"`
}

type Special struct {
	T     time.Time       `json:"t"`
	TO    time.Time       `json:"to,omitempty"` // a struct: omitempty never leaves it out
	TZ    time.Time       `json:"tz,omitzero"`
	TP    *time.Time      `json:"tp,omitempty"`
	Raw   json.RawMessage `json:"raw"`
	Bytes []byte          `json:"bytes"`
	Any   any             `json:"any"`
	Box   [4]float64      `json:"box"`
	Num   int64           `json:"num,string"`
	Skip  string          `json:"-"`
	Dash  string          `json:"-,"`
	priv  int
	NoTag string
	Anon  struct {
		X int `json:"x"`
	} `json:"anon"`
}

type Kind string

const (
	KindA Kind = "a"
	KindB Kind = "b"
)

type Plain string

type Uses struct {
	K Kind  `json:"k"`
	P Plain `json:"p"`
}

type Self struct {
	Next *Self `json:"next,omitempty"`
}

type Marshals struct{}

func (Marshals) MarshalJSON() ([]byte, error) { return []byte(`"x"`), nil }

type Text struct{}

func (Text) MarshalText() ([]byte, error) { return []byte("x"), nil }

type WithText struct {
	T Text          `json:"t"`
	M map[Text]bool `json:"m"`
}

func generate(t *testing.T, g *Generator, ty reflect.Type) string {
	t.Helper()
	g.Add(ty)
	out, err := g.Declarations()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestMapping(t *testing.T) {
	for _, c := range []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[Embeds](), `export interface Embeds {
  a: number
  b?: string
  c: boolean
}
`},
		{reflect.TypeFor[EmbedsPointer](), `export interface EmbedsPointer {
  a?: number
  b?: string
  c: boolean
}
`},
		{reflect.TypeFor[EmbedsTagged](), `export interface EmbedsTagged {
  inner: Inner
}

export interface Inner {
  a: number
  b?: string
}
`},
		{reflect.TypeFor[Shadows](), `export interface Shadows {
  b?: string
  a: string
}
`},
		{reflect.TypeFor[Tie](), `export interface Tie {
  y: number
  W: number
}
`},
		{reflect.TypeFor[Nullable](), `export interface Inner {
  a: number
  b?: string
}

export interface Nullable {
  p: number | null
  po?: number
  s: string[] | null
  so?: string[]
  m: Record<string, number> | null
  mi?: Record<string, Inner>
  sp: (Inner | null)[] | null
}
`},
		{reflect.TypeFor[Special](), `export interface Special {
  t: string
  to: string
  tz?: string
  tp?: string
  raw: unknown
  bytes: string | null
  any: unknown
  box: [number, number, number, number]
  num: string
  '-': string
  NoTag: string
  anon: {
    x: number
  }
}
`},
		{reflect.TypeFor[Uses](), `export interface Uses {
  k: string
  p: string
}
`},
		{reflect.TypeFor[Self](), `export interface Self {
  next?: Self
}
`},
		{reflect.TypeFor[WithText](), `export interface WithText {
  t: string
  m: Record<string, boolean> | null
}
`},
	} {
		t.Run(c.typ.Name(), func(t *testing.T) {
			if got := generate(t, &Generator{}, c.typ); got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

func TestNamesAndOverrides(t *testing.T) {
	g := &Generator{
		Names:     map[reflect.Type]string{reflect.TypeFor[Inner](): "Renamed"},
		Overrides: map[reflect.Type]string{reflect.TypeFor[Marshals](): "'x'"},
	}
	g.Add(reflect.TypeFor[struct {
		I Inner    `json:"i"`
		M Marshals `json:"m"`
	}]())
	out, err := g.Declarations()
	if err != nil {
		t.Fatal(err)
	}
	if want := "export interface Renamed {\n  a: number\n  b?: string\n}\n"; out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	if got := g.Add(reflect.TypeFor[Inner]()); got != "Renamed" {
		t.Errorf("Add returned %q", got)
	}
}

func TestErrors(t *testing.T) {
	type clash struct {
		A Inner            `json:"a"`
		B struct{ Inner2 } `json:"b"`
	}
	for name, c := range map[string]struct {
		g    *Generator
		typ  reflect.Type
		want string
	}{
		"marshaler": {&Generator{}, reflect.TypeFor[struct {
			M Marshals `json:"m"`
		}](), "marshals itself"},
		"chan": {&Generator{}, reflect.TypeFor[struct {
			C chan int `json:"c"`
		}](), "cannot carry a chan"},
		"one name for two types": {&Generator{Names: map[reflect.Type]string{reflect.TypeFor[Other](): "Inner"}},
			reflect.TypeFor[struct {
				A Inner `json:"a"`
				B Other `json:"b"`
			}](), "both named Inner"},
	} {
		t.Run(name, func(t *testing.T) {
			c.g.Add(c.typ)
			_, err := c.g.Declarations()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want one saying %q", err, c.want)
			}
		})
	}
}

type Inner2 struct{}

// TestSource reads doc comments and string constants from Go files: a named string type with constants becomes a
// union of its values.
func TestSource(t *testing.T) {
	dir := t.TempDir()
	src := `package p

// Mode is how it runs.
type Mode string

const (
	ModeFast Mode = "fast" // quick
	ModeSlow Mode = "slow"
	untyped       = "not a Mode"
)

// Thing is documented.
// It has two lines, and a */ inside.
type Thing struct {
	// M is the mode.
	M Mode ` + "`json:\"m\"`" + `
	N int  ` + "`json:\"n\"`" + ` // counted
}
`
	if err := os.MkdirAll(filepath.Join(dir, "p"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "p", "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s := &Source{Root: dir, Module: "example.com/m"}
	// Stand-ins for the parsed package's types, as reflect would see them there.
	g := &Generator{Source: s}
	thing := reflect.TypeFor[Thing]()
	// The test's own types live in this package: point the source at the temporary package for it.
	s.pkgs = map[string]*pkgInfo{thing.PkgPath(): s.pkg("example.com/m/p")}
	out := generate(t, g, thing)
	want := `/** Mode is how it runs. */
export type Mode = 'fast' | 'slow'

/**
 * Thing is documented.
 * It has two lines, and a *\/ inside.
 */
export interface Thing {
  /** M is the mode. */
  m: Mode
  /** counted */
  n: number
}
`
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	cs := s.Constants("example.com/m/p")
	if len(cs) != 3 || cs[0] != (Const{Name: "ModeFast", Type: "Mode", Value: "fast", Doc: "quick"}) || cs[2].Type != "" {
		t.Errorf("constants: %+v", cs)
	}
}

type Mode string

type Thing struct {
	M Mode `json:"m"`
	N int  `json:"n"`
}

type service struct{}

func (*service) List(context.Context, string) ([]Inner, error) { return nil, nil }
func (*service) Save(Other) error                              { return nil }
func (*service) One(int64) (*Inner, error)                     { return nil, nil }
func (*service) startup(context.Context)                       {}

// TestBound lists a bound service's argument and result types and generates them.
func TestBound(t *testing.T) {
	got := Bound(&service{})
	want := []reflect.Type{reflect.TypeFor[string](), reflect.TypeFor[[]Inner](), reflect.TypeFor[int64](),
		reflect.TypeFor[*Inner](), reflect.TypeFor[Other]()}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Bound = %v, want %v", got, want)
	}
	g := &Generator{}
	for _, ty := range got {
		g.Add(ty)
	}
	out, err := g.Declarations()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "export interface Inner {") || !strings.Contains(out, "export interface Other {") {
		t.Errorf("declarations:\n%s", out)
	}
}

type boundSvc struct{}

func (*boundSvc) Plain(_ context.Context, name string, n int) (bool, error) { return false, nil }
func (*boundSvc) Nothing() error                                            { return nil }

type twoResults struct{}

func (*twoResults) Both() (int, string, error) { return 0, "", nil }

// Methods lists each bound method with its arguments (the context left out) and its one result besides error, and
// refuses a method Wails cannot return from.
func TestMethods(t *testing.T) {
	ms, err := Methods(&boundSvc{})
	if err != nil || len(ms) != 2 {
		t.Fatalf("Methods = %+v, %v", ms, err)
	}
	if n := ms[0]; n.Name != "Nothing" || len(n.In) != 0 || n.Out != nil || n.Service.Name() != "boundSvc" {
		t.Errorf("Nothing = %+v", n)
	}
	if p := ms[1]; p.Name != "Plain" || len(p.In) != 2 || p.In[0].Kind() != reflect.String || p.Out.Kind() != reflect.Bool {
		t.Errorf("Plain = %+v", p)
	}
	if _, err := Methods(&twoResults{}); err == nil {
		t.Error("a method with two results besides error was accepted")
	}
}
