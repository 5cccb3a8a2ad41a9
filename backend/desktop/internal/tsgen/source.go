package tsgen

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Source reads the doc comments and string constants of one module's packages from their files (tests left out).
type Source struct {
	Root   string // the module's directory
	Module string // its path, as go.mod names it

	pkgs map[string]*pkgInfo
}

// Const is a string constant of a package.
type Const struct {
	Name, Type, Value, Doc string
}

type pkgInfo struct {
	types   map[string]string            // type name → doc
	fields  map[string]map[string]string // type name → field name → doc
	consts  []Const
	methods map[string]map[string]Method // receiver type name → method name → method
}

// Method is what a package's source says of a method: its doc comment and its parameters' names (""s where unnamed).
type Method struct {
	Doc    string
	Params []string
}

// Method returns the doc comment and parameter names of the method name of type typeName (a value or pointer
// receiver); ok is false when the package's source declares no such method (one promoted from an embedded field).
func (s *Source) Method(pkgPath, typeName, name string) (m Method, ok bool) {
	m, ok = s.pkg(pkgPath).methods[typeName][name]
	return m, ok
}

// Constants lists the string constants a package declares, in the order of its files and declarations.
func (s *Source) Constants(pkgPath string) []Const {
	return s.pkg(pkgPath).consts
}

func (s *Source) constants(pkgPath, typeName string) []string {
	var out []string
	for _, c := range s.pkg(pkgPath).consts {
		if c.Type == typeName {
			out = append(out, c.Value)
		}
	}
	return out
}

// TypeDoc is the doc comment of a package's type.
func (s *Source) TypeDoc(pkgPath, name string) string { return s.typeDoc(pkgPath, name) }

func (s *Source) typeDoc(pkgPath, name string) string { return s.pkg(pkgPath).types[name] }

func (s *Source) fieldDoc(pkgPath, typeName, field string) string {
	return s.pkg(pkgPath).fields[typeName][field]
}

func (s *Source) pkg(path string) *pkgInfo {
	if p, ok := s.pkgs[path]; ok {
		return p
	}
	if s.pkgs == nil {
		s.pkgs = map[string]*pkgInfo{}
	}
	p := &pkgInfo{types: map[string]string{}, fields: map[string]map[string]string{}, methods: map[string]map[string]Method{}}
	s.pkgs[path] = p
	var dir string
	switch {
	case path == s.Module:
		dir = s.Root
	case strings.HasPrefix(path, s.Module+"/"):
		dir = filepath.Join(s.Root, filepath.FromSlash(strings.TrimPrefix(path, s.Module+"/")))
	default:
		return p // outside the module: no docs
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return p
	}
	fset := token.NewFileSet()
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		p.read(f)
	}
	return p
}

func (p *pkgInfo) read(f *ast.File) {
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok {
			p.readMethod(fd)
			continue
		}
		gd, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, spec := range gd.Specs {
			switch sp := spec.(type) {
			case *ast.TypeSpec:
				doc := sp.Doc
				if doc == nil && len(gd.Specs) == 1 {
					doc = gd.Doc
				}
				if _, seen := p.types[sp.Name.Name]; !seen {
					p.types[sp.Name.Name] = text(doc)
				}
				if st, ok := sp.Type.(*ast.StructType); ok && p.fields[sp.Name.Name] == nil {
					fd := map[string]string{}
					for _, fl := range st.Fields.List {
						doc := text(fl.Doc)
						if doc == "" {
							doc = text(fl.Comment)
						}
						for _, n := range fl.Names {
							fd[n.Name] = doc
						}
						if len(fl.Names) == 0 { // embedded: named by its type
							fd[embeddedName(fl.Type)] = doc
						}
					}
					p.fields[sp.Name.Name] = fd
				}
			case *ast.ValueSpec:
				if gd.Tok != token.CONST {
					continue
				}
				typ := ""
				if id, ok := sp.Type.(*ast.Ident); ok {
					typ = id.Name
				}
				doc := text(sp.Doc)
				if doc == "" {
					doc = text(sp.Comment)
				}
				if doc == "" && len(gd.Specs) == 1 {
					doc = text(gd.Doc)
				}
				for i, n := range sp.Names {
					if i >= len(sp.Values) {
						break
					}
					lit, ok := sp.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					v, err := strconv.Unquote(lit.Value)
					if err != nil {
						continue
					}
					p.consts = append(p.consts, Const{Name: n.Name, Type: typ, Value: v, Doc: doc})
				}
			}
		}
	}
}

func (p *pkgInfo) readMethod(fd *ast.FuncDecl) {
	if fd.Recv == nil || len(fd.Recv.List) != 1 {
		return
	}
	recv := embeddedName(fd.Recv.List[0].Type)
	var params []string
	for _, fl := range fd.Type.Params.List {
		if len(fl.Names) == 0 {
			params = append(params, "")
		}
		for _, n := range fl.Names {
			params = append(params, n.Name)
		}
	}
	if p.methods[recv] == nil {
		p.methods[recv] = map[string]Method{}
	}
	p.methods[recv][fd.Name.Name] = Method{Doc: text(fd.Doc), Params: params}
}

func embeddedName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return embeddedName(t.X)
	case *ast.SelectorExpr:
		return t.Sel.Name
	case *ast.Ident:
		return t.Name
	case *ast.IndexExpr:
		return embeddedName(t.X)
	}
	return ""
}

func text(c *ast.CommentGroup) string {
	if c == nil {
		return ""
	}
	return strings.TrimSpace(c.Text())
}
