package script_test

import (
	"context"
	"fmt"

	"deskpilot/agent/script"

	"go.starlark.net/starlark"
)

func Example() {
	greet := script.Tool{
		Name: "greet", Group: "demo", Returns: "str",
		Params: []script.Param{{Name: "name", Type: "str", Doc: "who to greet."}},
		Doc:    "Return a greeting.",
		Fn: func(c *script.Call, _ starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
			a, err := c.Bind()
			if err != nil {
				return nil, err
			}
			name := a.String("name")
			if err := a.Err(); err != nil {
				return nil, err
			}
			return starlark.String("hello, " + name), nil
		},
	}
	e := script.New(script.Options{}, greet)
	ctx := context.Background()

	res := e.Exec(ctx, "names = ['ada', 'linus']")
	res = e.Exec(ctx, "for n in names:\n    print(greet(n))")
	fmt.Print(res.Output)

	res = e.Exec(ctx, "greet(42)")
	fmt.Println(res.Err.Kind, res.Err.Line)

	res = e.Exec(ctx, "final_answer(len(names))")
	fmt.Println(res.Final.Value)
	// Output:
	// hello, ada
	// hello, linus
	// runtime 1
	// 2
}
