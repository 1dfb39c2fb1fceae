// Command gopher-lua evaluates an Argo CD resource health check the way Argo CD does: the script
// runs in gopher-lua (Lua 5.1) with the global `obj` set to the object converted to Lua tables,
// and must return a table with `status` and `message`.
//
// Usage: gopher-lua <health.lua> < objects.json
// stdin holds a JSON array of objects; stdout is a JSON array of {status, message} (or {error}),
// one per object, in order. Exit code 2: bad usage or input.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	lua "github.com/yuin/gopher-lua"
)

// verdict is one health check result.
type verdict struct {
	Status  string `json:"status,omitempty"`
	Message string `json:"message,omitempty"`
	Error   string `json:"error,omitempty"`
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gopher-lua <health.lua> < objects.json")
		os.Exit(2)
	}
	script, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var objects []any
	if err := json.NewDecoder(os.Stdin).Decode(&objects); err != nil {
		fmt.Fprintln(os.Stderr, "cannot read objects:", err)
		os.Exit(2)
	}
	verdicts := make([]verdict, 0, len(objects))
	for _, object := range objects {
		verdicts = append(verdicts, evaluate(string(script), object))
	}
	if err := json.NewEncoder(os.Stdout).Encode(verdicts); err != nil {
		os.Exit(1)
	}
}

// evaluate runs the script on one object in a fresh state with Argo CD's library set.
func evaluate(script string, object any) verdict {
	state := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer state.Close()
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{
		{lua.LoadLibName, lua.OpenPackage},
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath},
	} {
		state.Push(state.NewFunction(lib.open))
		state.Push(lua.LString(lib.name))
		state.Call(1, 0)
	}
	state.SetGlobal("obj", toLua(state, object))
	if err := state.DoString(script); err != nil {
		return verdict{Error: err.Error()}
	}
	result, ok := state.Get(-1).(*lua.LTable)
	if !ok {
		return verdict{Error: "the script did not return a table"}
	}
	return verdict{
		Status:  lua.LVAsString(result.RawGetString("status")),
		Message: lua.LVAsString(result.RawGetString("message")),
	}
}

// toLua converts decoded JSON as Argo CD does: objects and arrays become tables (arrays 1-based).
func toLua(state *lua.LState, value any) lua.LValue {
	switch v := value.(type) {
	case map[string]any:
		table := state.NewTable()
		for key, item := range v {
			table.RawSetString(key, toLua(state, item))
		}
		return table
	case []any:
		table := state.NewTable()
		for _, item := range v {
			table.Append(toLua(state, item))
		}
		return table
	case string:
		return lua.LString(v)
	case float64:
		return lua.LNumber(v)
	case bool:
		return lua.LBool(v)
	default:
		return lua.LNil
	}
}
