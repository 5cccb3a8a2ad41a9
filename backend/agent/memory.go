package agent

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// The VimRAG memory graph (vrag.md §2b): nodes in creation order (the order is the energy's clock), edges implied by
// each child's parents, and visual memory items hanging off search nodes.

// Energy constants from the paper and the reference code.
const (
	energyLambda = 0.1 // recency decay per node of age
	energyGamma  = 0.3 // share of the children's mean Ω fed back to the parent
	memoryTopK   = 5   // items that get pixels
)

type gnode struct {
	ID      string
	Type    string // root | search | answer
	Parents []string
	Query   string
	Summary string
	Answer  string
	// Expression and Result are a calculation node's.
	Expression, Result string
	Data               *object // the node as shown to the model in the prompt's graph JSON
}

type memGraph struct {
	nodes []*gnode
	byID  map[string]*gnode
}

func newMemGraph(question string) *memGraph {
	root := newObject()
	root.set("id", "root")
	root.set("name", "Initial Node")
	root.set("content", "Initial query from user: "+question)
	g := &memGraph{byID: map[string]*gnode{}}
	g.add(&gnode{ID: "root", Type: "root", Data: root})
	return g
}

func (g *memGraph) add(n *gnode) {
	g.nodes = append(g.nodes, n)
	g.byID[n.ID] = n
}

// errGraph marks a graph the model tried to make invalid; the model is told and may try again.
var errGraph = errors.New("invalid graph")

// checkNew validates a node about to be added: a non-empty id unused so far, parents that all exist. Since parents
// must already exist, a new node can never close a cycle; naming itself as a parent is the only way to try.
func (g *memGraph) checkNew(id string, parents []string) error {
	switch {
	case id == "":
		return fmt.Errorf("%w: the search node has no id", errGraph)
	case id == "answer":
		return fmt.Errorf("%w: %q is reserved for the answer node", errGraph, id)
	case g.byID[id] != nil:
		return fmt.Errorf("%w: a node with id %q already exists; ids must be unique", errGraph, id)
	}
	if len(parents) == 0 {
		return fmt.Errorf("%w: node %q has no parent_ids", errGraph, id)
	}
	for _, p := range parents {
		if p == id {
			return fmt.Errorf("%w: node %q lists itself as a parent, which would make a cycle", errGraph, id)
		}
		if g.byID[p] == nil {
			return fmt.Errorf("%w: parent %q of node %q does not exist (known ids: %s)", errGraph, p, id, g.idList())
		}
	}
	return nil
}

func (g *memGraph) idList() string {
	s := ""
	for i, n := range g.nodes {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%q", n.ID)
	}
	return s
}

// json is the graph as the reference puts it in the prompt: json.dumps(action_graph, ensure_ascii=False).
func (g *memGraph) json() string {
	list := make([]any, len(g.nodes))
	for i, n := range g.nodes {
		list[i] = n.Data
	}
	return pyJSON(list)
}

func (g *memGraph) info() GraphInfo {
	gi := GraphInfo{Nodes: []GraphNode{}, Edges: []GraphEdge{}}
	for _, n := range g.nodes {
		gi.Nodes = append(gi.Nodes, GraphNode{ID: n.ID, Type: n.Type, Parents: n.Parents, Query: n.Query, Summary: n.Summary, Answer: n.Answer,
			Expression: n.Expression, Result: n.Result})
		for _, p := range n.Parents {
			gi.Edges = append(gi.Edges, GraphEdge{From: p, To: n.ID})
		}
	}
	return gi
}

// memItem is one useful image or video the model chose to keep.
type memItem struct {
	NodeID   string
	InfoID   string
	Hit      Hit
	Priority int
	Video    bool
	Frames   []Frame // kept frames of a video, in time order
}

// scoredItem is an item with its energy and its share of the budget.
type scoredItem struct {
	*memItem
	E, Omega float64
	Selected bool
	Pixels   int // per image, or per frame for a video
}

// score computes every item's intrinsic energy E = (p/5)·(1+out-degree)·exp(−λ·age), with age counted in nodes
// created since, then Ω = E + γ·Σ over children with memory of their mean Ω (children first: reverse creation order).
// Then the global top-5 items by Ω share total pixels in proportion to Ω. Items come back in graph order.
func score(g *memGraph, mem map[string][]*memItem, total int) []*scoredItem {
	out := map[string]int{}
	children := map[string][]string{}
	for _, n := range g.nodes {
		for _, p := range n.Parents {
			out[p]++
			children[p] = append(children[p], n.ID)
		}
	}
	tMax := len(g.nodes) - 1
	items := map[string][]*scoredItem{}
	for i, n := range g.nodes {
		phi := float64(1 + out[n.ID])
		decay := math.Exp(-energyLambda * float64(tMax-i))
		for _, m := range mem[n.ID] {
			e := float64(m.Priority) / 5.0 * phi * decay
			items[n.ID] = append(items[n.ID], &scoredItem{memItem: m, E: e, Omega: e})
		}
	}
	for i := len(g.nodes) - 1; i >= 0; i-- {
		id := g.nodes[i].ID
		if len(items[id]) == 0 {
			continue
		}
		feedback := 0.0
		for _, c := range children[id] {
			if cs := items[c]; len(cs) > 0 {
				sum := 0.0
				for _, s := range cs {
					sum += s.Omega
				}
				feedback += sum / float64(len(cs))
			}
		}
		for _, s := range items[id] {
			s.Omega += energyGamma * feedback
		}
	}
	var flat []*scoredItem
	for _, n := range g.nodes {
		flat = append(flat, items[n.ID]...)
	}
	ranked := append([]*scoredItem(nil), flat...)
	sort.SliceStable(ranked, func(a, b int) bool { return ranked[a].Omega > ranked[b].Omega })
	if len(ranked) > memoryTopK {
		ranked = ranked[:memoryTopK]
	}
	sum := 0.0
	for _, s := range ranked {
		sum += s.Omega
	}
	for _, s := range ranked {
		s.Selected = true
		if sum > 0 {
			s.Pixels = int(float64(total) * s.Omega / sum)
		}
		if s.Video && len(s.Frames) > 0 {
			s.Pixels /= len(s.Frames)
		}
	}
	return flat
}
