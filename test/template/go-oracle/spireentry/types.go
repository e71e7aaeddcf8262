package spireentry

import (
	"encoding/json"
	"reflect"
	"strings"
)

var unmarshaler = reflect.TypeFor[json.Unmarshaler]()

// Field is a struct field as our type model describes it.
type Field struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	JSON     string `json:"json"`
	Embedded bool   `json:"embedded,omitempty"`
}

// Method is a method in the method set of a type or of a pointer to it.
type Method struct {
	Name string   `json:"name"`
	In   []string `json:"in"`
	Out  []string `json:"out"`
	// Variadic is true when the last parameter is variadic.
	Variadic bool `json:"variadic,omitempty"`
	// Pointer is true when only the pointer type has the method.
	Pointer bool `json:"pointer,omitempty"`
}

// Type describes one Go type reachable from templateData through fields.
type Type struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	// CustomJSON is true when the type decodes its own JSON (time, quantity, int-or-string, fieldsv1).
	CustomJSON bool `json:"customJSON,omitempty"`
	// ModelName is what OpenAPIModelName returns, for the types that have it.
	ModelName string   `json:"modelName,omitempty"`
	Elem      string   `json:"elem,omitempty"`
	Key       string   `json:"key,omitempty"`
	Fields    []Field  `json:"fields,omitempty"`
	Methods   []Method `json:"methods,omitempty"`
}

func names(types func(int) reflect.Type, n, skip int) []string {
	out := []string{}
	for i := skip; i < n; i++ {
		out = append(out, types(i).String())
	}
	return out
}

func methods(t reflect.Type) []Method {
	out := []Method{}
	own := map[string]bool{}
	for i := 0; i < t.NumMethod(); i++ {
		own[t.Method(i).Name] = true
	}
	pt := reflect.PointerTo(t)
	if t.Kind() == reflect.Pointer || t.Kind() == reflect.Interface {
		pt = t
	}
	for i := 0; i < pt.NumMethod(); i++ {
		m := pt.Method(i)
		ft := m.Type
		out = append(out, Method{
			Name:     m.Name,
			In:       names(ft.In, ft.NumIn(), 1),
			Out:      names(ft.Out, ft.NumOut(), 0),
			Variadic: ft.IsVariadic(),
			Pointer:  !own[m.Name] && t.Kind() != reflect.Pointer,
		})
	}
	return out
}

// Types lists templateData and every type reachable from it through fields,
// pointers, slices and maps, and through the results of time.Time's methods.
func Types() []Type {
	seen := map[reflect.Type]bool{}
	var out []Type
	var visit func(t reflect.Type)
	visit = func(t reflect.Type) {
		if seen[t] {
			return
		}
		seen[t] = true
		d := Type{Name: t.String(), Kind: t.Kind().String(), Methods: methods(t)}
		if t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(unmarshaler) {
			d.CustomJSON = true
		}
		if m, ok := t.MethodByName("OpenAPIModelName"); ok && t.Kind() != reflect.Pointer {
			d.ModelName = m.Func.Call([]reflect.Value{reflect.Zero(t)})[0].String()
		}
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice:
			d.Elem = t.Elem().String()
			defer visit(t.Elem())
		case reflect.Map:
			d.Key, d.Elem = t.Key().String(), t.Elem().String()
			defer visit(t.Key())
			defer visit(t.Elem())
		case reflect.Struct:
			// Structs with unexported fields (time.Time, resource.Quantity) are
			// described but not entered: templates cannot reach inside them.
			exported := true
			for i := 0; i < t.NumField(); i++ {
				f := t.Field(i)
				tag := strings.Split(f.Tag.Get("json"), ",")[0]
				d.Fields = append(d.Fields, Field{Name: f.Name, Type: f.Type.String(), JSON: tag, Embedded: f.Anonymous})
				exported = exported && f.IsExported()
			}
			for i := 0; exported && i < t.NumField(); i++ {
				defer visit(t.Field(i).Type)
			}
		}
		out = append(out, d)
	}
	visit(reflect.TypeFor[*templateData]())
	return out
}
