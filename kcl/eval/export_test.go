package eval

// SetStaticPassOff lets the benchmarks of package eval_test time warm
// compiles with and without the static pass.
func SetStaticPassOff(off bool) { staticPassOff = off }
