package ui

import (
	"bytes"
	"context"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/runstatus"
)

// fragmentHeader asks for a page's content only: the live script swaps it in place.
const fragmentHeader = "X-Fragment"

// page is what the layout needs around every page's content.
type page struct {
	Title string
	// Nav is the section the page belongs to, to mark it in the menu.
	Nav  string
	User string
	Auth Auth
	// Live is the stream that says when the content changed ("" for none).
	Live string
	Data any
}

func parsePages(now func() time.Time) (map[string]*template.Template, error) {
	funcs := template.FuncMap{
		"age": func(t metav1.Time) string {
			if t.IsZero() {
				return "-"
			}
			return duration.HumanDuration(now().Sub(t.Time))
		},
		"stateClass": func(s runstatus.State) string { return strings.ToLower(string(s)) },
		"short":      runstatus.TruncateHex,
		"lower":      strings.ToLower,
	}
	base, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFiles, "templates/layout.html")
	if err != nil {
		return nil, fmt.Errorf("parsing the layout: %w", err)
	}
	names, err := fs.Glob(templateFiles, "templates/*.html")
	if err != nil {
		return nil, err
	}
	pages := map[string]*template.Template{}
	for _, name := range names {
		if name == "templates/layout.html" {
			continue
		}
		t, err := template.Must(base.Clone()).ParseFS(templateFiles, name)
		if err != nil {
			return nil, fmt.Errorf("parsing %s: %w", name, err)
		}
		pages[strings.TrimSuffix(strings.TrimPrefix(name, "templates/"), ".html")] = t
	}
	return pages, nil
}

// render writes the page, or its content alone when the live script asks for it. It renders
// into a buffer first so that a template error is a 500, not half a page.
func (s *Server) render(w http.ResponseWriter, r *http.Request, name string, status int, p page) {
	p.Auth = s.opts.Auth
	t := s.pages[name]
	var buf bytes.Buffer
	var err error
	if r.Header.Get(fragmentHeader) != "" {
		err = t.ExecuteTemplate(&buf, "content", p)
	} else {
		err = t.ExecuteTemplate(&buf, "layout.html", p)
	}
	if err != nil {
		http.Error(w, "rendering the page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// stateCount is one state's number of runs.
type stateCount struct {
	State runstatus.State
	Count int
}

// namespaceCounts is one namespace's line of the overview.
type namespaceCounts struct {
	Namespace string
	Counts    []stateCount
	Total     int
}

type overviewData struct {
	Err        string
	Scope      string
	Total      int
	Totals     []stateCount
	Namespaces []namespaceCounts
	// Failing and Progressing are the first runs in those states, to act on.
	Failing, Progressing []*row
	Rollouts             []rolloutRow
}

// attentionRows is how many failing (and progressing) runs the overview lists.
const attentionRows = 20

func (s *Server) overview(w http.ResponseWriter, r *http.Request, sess *session) {
	p := page{Title: "Overview", Nav: "overview", User: sess.user, Live: "/live"}
	data := overviewData{}
	if err := sess.waitReady(r.Context()); err != nil {
		data.Err = err.Error()
		p.Data = data
		s.render(w, r, "overview", http.StatusOK, p)
		return
	}
	data.Scope = scopeOf(sess.store)
	index := map[runstatus.State]int{}
	for i, st := range runstatus.States {
		index[st] = i
		data.Totals = append(data.Totals, stateCount{State: st})
	}
	var current *namespaceCounts
	for _, rw := range sess.store.all() {
		if current == nil || current.Namespace != rw.Key.Namespace {
			data.Namespaces = append(data.Namespaces, namespaceCounts{Namespace: rw.Key.Namespace})
			current = &data.Namespaces[len(data.Namespaces)-1]
			for _, st := range runstatus.States {
				current.Counts = append(current.Counts, stateCount{State: st})
			}
		}
		i := index[rw.State]
		current.Counts[i].Count++
		current.Total++
		data.Totals[i].Count++
		data.Total++
		switch {
		case rw.State == runstatus.Failing && len(data.Failing) < attentionRows:
			data.Failing = append(data.Failing, rw)
		case rw.State == runstatus.Progressing && len(data.Progressing) < attentionRows:
			data.Progressing = append(data.Progressing, rw)
		}
	}
	data.Rollouts = s.rolloutsInProgress(r.Context(), sess)
	p.Data = data
	s.render(w, r, "overview", http.StatusOK, p)
}

// scopeOf says which namespaces the user's view covers.
func scopeOf(st *store) string {
	switch {
	case st.namespaces == nil:
		return "all namespaces"
	case len(st.namespaces) == 0:
		return "no namespace: you may not list KCLRuns anywhere"
	case len(st.namespaces) <= 5:
		return "namespaces " + strings.Join(st.namespaces, ", ")
	}
	return fmt.Sprintf("%d namespaces you may read", len(st.namespaces))
}

type listData struct {
	Err                     string
	Scope                   string
	Rows                    []*row
	State, Namespace, Query string
	States                  []runstatus.State
	Namespaces              []string
	Total, Matched          int
	Page, Pages             int
	First, Last             int
	Prev, Next              string
}

func (s *Server) list(w http.ResponseWriter, r *http.Request, sess *session) {
	q := r.URL.Query()
	data := listData{
		State:     q.Get("state"),
		Namespace: q.Get("namespace"),
		Query:     strings.TrimSpace(q.Get("q")),
		States:    runstatus.States,
	}
	p := page{Title: "KCLRuns", Nav: "kclruns", User: sess.user, Live: "/live"}
	if err := sess.waitReady(r.Context()); err != nil {
		data.Err = err.Error()
		p.Data = data
		s.render(w, r, "list", http.StatusOK, p)
		return
	}
	data.Scope = scopeOf(sess.store)
	needle := strings.ToLower(data.Query)
	all := sess.store.all()
	data.Total = len(all)
	var matched []*row
	for _, rw := range all {
		if len(data.Namespaces) == 0 || data.Namespaces[len(data.Namespaces)-1] != rw.Key.Namespace {
			data.Namespaces = append(data.Namespaces, rw.Key.Namespace)
		}
		if data.State != "" && string(rw.State) != data.State {
			continue
		}
		if data.Namespace != "" && rw.Key.Namespace != data.Namespace {
			continue
		}
		if needle != "" && !strings.Contains(rw.search, needle) {
			continue
		}
		matched = append(matched, rw)
	}
	data.Matched = len(matched)
	size := s.opts.PageSize
	data.Pages = max(1, (len(matched)+size-1)/size)
	data.Page, _ = strconv.Atoi(q.Get("page"))
	data.Page = min(max(data.Page, 1), data.Pages)
	from := (data.Page - 1) * size
	to := min(from+size, len(matched))
	data.Rows = matched[from:to]
	data.First, data.Last = from+1, to
	link := func(n int) string {
		v := url.Values{}
		for k, x := range map[string]string{"state": data.State, "namespace": data.Namespace, "q": data.Query} {
			if x != "" {
				v.Set(k, x)
			}
		}
		v.Set("page", strconv.Itoa(n))
		return "/kclruns?" + v.Encode()
	}
	if data.Page > 1 {
		data.Prev = link(data.Page - 1)
	}
	if data.Page < data.Pages {
		data.Next = link(data.Page + 1)
	}
	p.Data = data
	s.render(w, r, "list", http.StatusOK, p)
}

// notReadable is the answer for a run the user cannot read, whether or not it exists: the
// page says nothing more about it.
func (s *Server) notReadable(w http.ResponseWriter, r *http.Request, sess *session, key types.NamespacedName) {
	s.render(w, r, "missing", http.StatusNotFound, page{
		Title: "Not found", Nav: "kclruns", User: sess.user,
		Data: fmt.Sprintf("There is no KCLRun %s that you may read.", key),
	})
}

// sortedKeys is a map's keys in order.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// requestContext bounds the apiserver calls of one page.
func requestContext(r *http.Request) (context.Context, context.CancelFunc) {
	return context.WithTimeout(r.Context(), 30*time.Second)
}
