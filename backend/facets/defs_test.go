package facets

import (
	"reflect"
	"strings"
	"testing"
)

// Every field of Facets is one facet of defs, under its JSON name, so a facet added to the struct without its row
// (or the other way round) fails here; Get and Set reach the field of the name.
func TestDefsCoverFacets(t *testing.T) {
	ft := reflect.TypeFor[Facets]()
	if ft.NumField() != len(defs) {
		t.Fatalf("Facets has %d fields, defs %d facets", ft.NumField(), len(defs))
	}
	for i := range ft.NumField() {
		name, _, _ := strings.Cut(ft.Field(i).Tag.Get("json"), ",")
		if _, ok := defOf(name); !ok {
			t.Errorf("field %s (json %q) has no facet in defs", ft.Field(i).Name, name)
			continue
		}
		var f Facets
		f.Set(name, "v-"+name)
		if got := reflect.ValueOf(f).Field(i).String(); got != "v-"+name {
			t.Errorf("Set(%q) wrote %q into field %s", name, got, ft.Field(i).Name)
		}
		if got := f.Get(name); got != "v-"+name {
			t.Errorf("Get(%q) = %q", name, got)
		}
		if _, err := ParseWhere(name + "=2022"); err != nil && strings.Contains(err.Error(), "unknown facet") {
			t.Errorf("facet %s cannot be filtered: %v", name, err)
		}
	}
	if (Facets{}).Get("nope") != "" {
		t.Error("Get of an unknown facet returned a value")
	}
}
