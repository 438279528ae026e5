package check

import (
	"slices"
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
)

// ruleGraph is the official resolver's dependency graph as far as rules
// make it: an edge from each rule to each of its parent rules, added as the
// rule types are built. A rule that closes a cycle is reported at every rule
// of its strongly connected component, in the order the resolver's petgraph
// kosaraju_scc lists them; that order is what the messages name, so the graph
// keeps petgraph's conventions: nodes numbered by first appearance, the
// newest edge of a node visited first.
type ruleGraph struct {
	nodes []*schemaInfo
	index map[*schemaInfo]int
	out   [][]int // per node, targets, oldest edge first
	in    [][]int // per node, sources, oldest edge first
}

func (g *ruleGraph) node(s *schemaInfo) int {
	if i, ok := g.index[s]; ok {
		return i
	}
	if g.index == nil {
		g.index = map[*schemaInfo]int{}
	}
	i := len(g.nodes)
	g.index[s] = i
	g.nodes = append(g.nodes, s)
	g.out = append(g.out, nil)
	g.in = append(g.in, nil)
	return i
}

func (g *ruleGraph) addEdge(from, to *schemaInfo) int {
	f, t := g.node(from), g.node(to)
	g.out[f] = append(g.out[f], t)
	g.in[t] = append(g.in[t], f)
	return f
}

// newestFirst lists a node's neighbours as petgraph iterates them.
func newestFirst(edges []int) func(func(int) bool) {
	return func(yield func(int) bool) {
		for i := len(edges) - 1; i >= 0; i-- {
			if !yield(edges[i]) {
				return
			}
		}
	}
}

// components is petgraph's kosaraju_scc: a post-order pass over the reversed
// graph, then a pre-order pass over the graph in decreasing finishing order.
func (g *ruleGraph) components() [][]int {
	n := len(g.nodes)
	discovered, finished := make([]bool, n), make([]bool, n)
	var finish []int
	for start := range n {
		if discovered[start] {
			continue
		}
		stack := []int{start}
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			if !discovered[x] {
				discovered[x] = true
				for y := range newestFirst(g.in[x]) {
					if !discovered[y] {
						stack = append(stack, y)
					}
				}
				continue
			}
			stack = stack[:len(stack)-1]
			if !finished[x] {
				finished[x] = true
				finish = append(finish, x)
			}
		}
	}
	clear(discovered)
	var out [][]int
	for k := len(finish) - 1; k >= 0; k-- {
		if discovered[finish[k]] {
			continue
		}
		var comp []int
		stack := []int{finish[k]}
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if discovered[x] {
				continue
			}
			discovered[x] = true
			comp = append(comp, x)
			for y := range newestFirst(g.out[x]) {
				if !discovered[y] {
					stack = append(stack, y)
				}
			}
		}
		out = append(out, comp)
	}
	return out
}

// ruleParent records that rule s has parent rule p and reports the cycles
// through s this closes, as the official build_rule_type does after each
// edge.
func (r *checker) ruleParent(s, p *schemaInfo) {
	from := r.rules.addEdge(s, p)
	if len(r.rules.in[from]) == 0 {
		return // no cycle runs through a rule nothing depends on
	}
	for _, comp := range r.rules.components() {
		if len(comp) < 2 || !slices.Contains(comp, from) {
			continue
		}
		names := make([]string, len(comp))
		for i, x := range comp {
			names[i] = r.rules.nodes[x].fullName()
		}
		for _, x := range comp {
			if rs := r.rules.nodes[x].rule; rs != nil && rs.Name != nil {
				r.report(errkind.Compile, rs.Name.Pos(), "There is a circular reference between rules %s", strings.Join(names, ", "))
			}
		}
	}
}
