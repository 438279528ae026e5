// Package ui is the web view of KCLRuns and image rollouts that `flux-kcl-controller ui`
// serves: an overview, a list usable at 10,000 runs, a page per KCLRun (conditions with the
// program's file:line, source, inventory tree with health, events, image moves, history,
// diff on demand) and per ImageRollout, updated live, with the CLI's actions.
//
// Every request acts as the person behind it, never with the server's own rights: locally
// with the user's kubeconfig; in the cluster as the user an authenticating proxy names
// (impersonation) or with the bearer token the browser sends (the apiserver checks it).
// What a page shows is decided by the same code as the CLI's verbs (runstatus, runevents,
// inventorytree, runaction), so the two never disagree.
//
// Pages are html/template with embedded assets and a small script (server-sent events for
// the live updates): no build step, nothing loaded from elsewhere, it works offline.
package ui

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/runstatus"
	"github.com/kcl-lang/flux-kcl-controller/internal/kubescheme"
)

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFiles embed.FS

// Auth is how the server learns who the person behind a request is.
type Auth string

const (
	// AuthKubeconfig: one person, the one running `flux-kcl-controller ui`, with their
	// kubeconfig. The server listens on loopback only.
	AuthKubeconfig Auth = "kubeconfig"
	// AuthProxy: an authenticating proxy in front of the server names the user (and groups)
	// in the configured headers; every request impersonates them.
	AuthProxy Auth = "proxy"
	// AuthToken: the browser sends a bearer token (Authorization header from a proxy, or the
	// token the user signed in with); every request uses it and the apiserver checks it.
	AuthToken Auth = "token"
)

// Options configure a Server.
type Options struct {
	// Config reaches the apiserver. With AuthKubeconfig it is the user's; with AuthProxy the
	// server's own, which needs nothing but the right to impersonate; with AuthToken only
	// its address and certificate authority are used.
	Config *rest.Config
	Auth   Auth
	// UserHeader and GroupHeader are the only request headers AuthProxy trusts to name
	// the user and the groups (comma-separated or repeated), e.g. X-Forwarded-User.
	UserHeader, GroupHeader string
	// Namespaces are where to look for a user who may list neither KCLRuns cluster-wide nor
	// namespaces: each is tried as the user, and only those that answer are shown.
	Namespaces func(context.Context) ([]string, error)
	// Cluster names the cluster in the header (the kubeconfig context).
	Cluster string
	// PageSize is the list's rows per page; 100 when zero.
	PageSize int
	// Now is the clock of the ages shown; time.Now when nil.
	Now func() time.Time
	// SessionIdle is how long a user's watch outlives their last request; 10 minutes when zero.
	SessionIdle time.Duration
	// HealthAddress, when set, is where Serve answers kubelet's /healthz and /readyz: a
	// listener of its own, as behind the proxy the view listens on the pod's loopback.
	HealthAddress string
}

// Server serves the web view. Its watches run until the context given to New ends.
type Server struct {
	opts    Options
	ctx     context.Context
	pages   map[string]*template.Template
	handler http.Handler

	mu       sync.Mutex
	sessions map[string]*session
	// artifacts are the programs the diffs compile.
	artifacts artifacts
}

// session is one person's connection to the apiserver: their client and their store.
type session struct {
	user   string
	config *rest.Config
	client client.WithWatch
	store  *store
}

// New builds a Server; ctx bounds the watches it starts.
func New(ctx context.Context, opts Options) (*Server, error) {
	if opts.Config == nil {
		return nil, errors.New("ui: no apiserver config")
	}
	switch opts.Auth {
	case "":
		opts.Auth = AuthKubeconfig
	case AuthKubeconfig, AuthToken:
	case AuthProxy:
		if opts.UserHeader == "" {
			return nil, errors.New("ui: --auth=proxy needs the header that names the user (--user-header)")
		}
	default:
		return nil, fmt.Errorf("ui: unknown auth %q: want kubeconfig, proxy or token", opts.Auth)
	}
	if opts.PageSize <= 0 {
		opts.PageSize = 100
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.SessionIdle <= 0 {
		opts.SessionIdle = 10 * time.Minute
	}
	if opts.Namespaces == nil {
		opts.Namespaces = func(context.Context) ([]string, error) { return nil, nil }
	}
	s := &Server{opts: opts, ctx: ctx, sessions: map[string]*session{}}
	var err error
	if s.pages, err = parsePages(opts.Now); err != nil {
		return nil, err
	}
	s.handler = s.routes()
	go s.expireSessions()
	return s, nil
}

// Handler serves every page, the live stream, the actions and the assets.
func (s *Server) Handler() http.Handler { return s.handler }

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	static, _ := fs.Sub(staticFiles, "static")
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	mux.HandleFunc("GET /{$}", s.withSession(s.overview))
	mux.HandleFunc("GET /kclruns", s.withSession(s.list))
	mux.HandleFunc("GET /kclruns/{namespace}/{name}", s.withSession(s.kclrun))
	mux.HandleFunc("GET /kclruns/{namespace}/{name}/diff", s.withSession(s.diff))
	mux.HandleFunc("POST /kclruns/{namespace}/{name}/{action}", s.withSession(s.act))
	mux.HandleFunc("GET /imagerollouts/{namespace}/{name}", s.withSession(s.rolloutPage))
	mux.HandleFunc("POST /imagerollouts/{namespace}/{name}/{action}", s.withSession(s.rolloutAction))
	mux.HandleFunc("GET /live", s.withSession(s.live))
	if s.opts.Auth == AuthToken {
		mux.HandleFunc("GET /login", s.loginPage)
		mux.HandleFunc("POST /login", s.login)
		mux.HandleFunc("POST /logout", s.logout)
	}
	// Requests that change state must come from the view's own pages: the browser's
	// Sec-Fetch-Site/Origin headers say where a request comes from, and a cross-origin POST
	// is refused before any handler runs (CSRF).
	var h http.Handler = http.NewCrossOriginProtection().Handler(mux)
	h = securityHeaders(h)
	if s.opts.Auth == AuthKubeconfig {
		h = loopbackHost(h)
	}
	return h
}

// securityHeaders forbid what the pages never do: load or run anything from elsewhere,
// inline scripts, framing.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		next.ServeHTTP(w, r)
	})
}

// loopbackHost refuses a Host that is not loopback: a web page elsewhere cannot reach the
// local view through a name it rebinds to 127.0.0.1 (DNS rebinding).
func loopbackHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		if !isLoopback(host) {
			http.Error(w, "the local web view answers on loopback names only", http.StatusMisdirectedRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// CheckAddress refuses a listen address that is not loopback for AuthKubeconfig: the
// user's own credentials are served to whoever can connect.
func CheckAddress(auth Auth, addr string) error {
	if auth != AuthKubeconfig && auth != "" {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("address %q: %w", addr, err)
	}
	if !isLoopback(host) {
		return fmt.Errorf("address %q: with your kubeconfig the web view listens on loopback only (127.0.0.1, ::1 or localhost)", addr)
	}
	return nil
}

// withSession finds (or starts) the session of the person behind the request.
func (s *Server) withSession(h func(http.ResponseWriter, *http.Request, *session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		sess, err := s.sessionFor(r)
		if err != nil {
			if s.opts.Auth == AuthToken && r.Method == http.MethodGet {
				http.Redirect(w, r, "/login", http.StatusSeeOther)
				return
			}
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		h(w, r, sess)
	}
}

// errNoIdentity is a request that does not say who is behind it.
var errNoIdentity = errors.New("who are you? the request names no user")

// identify is the session key, the name shown and the apiserver config of the request's
// person.
func (s *Server) identify(r *http.Request) (key, user string, cfg *rest.Config, err error) {
	switch s.opts.Auth {
	case AuthProxy:
		name := strings.TrimSpace(r.Header.Get(s.opts.UserHeader))
		if name == "" {
			return "", "", nil, fmt.Errorf("%w: the authenticating proxy sent no %s header", errNoIdentity, s.opts.UserHeader)
		}
		var groups []string
		if s.opts.GroupHeader != "" {
			for _, v := range r.Header.Values(s.opts.GroupHeader) {
				for _, g := range strings.Split(v, ",") {
					if g = strings.TrimSpace(g); g != "" {
						groups = append(groups, g)
					}
				}
			}
		}
		cfg = rest.CopyConfig(s.opts.Config)
		cfg.Impersonate = rest.ImpersonationConfig{UserName: name, Groups: groups}
		return "proxy\x00" + name + "\x00" + strings.Join(groups, "\x00"), name, cfg, nil
	case AuthToken:
		token := bearerToken(r)
		if token == "" {
			return "", "", nil, fmt.Errorf("%w: sign in with a token", errNoIdentity)
		}
		cfg = rest.AnonymousClientConfig(s.opts.Config)
		cfg.BearerToken = token
		sum := sha256.Sum256([]byte(token))
		return "token\x00" + hex.EncodeToString(sum[:]), "token " + hex.EncodeToString(sum[:4]), cfg, nil
	}
	return "kubeconfig", s.opts.Cluster, s.opts.Config, nil
}

func (s *Server) sessionFor(r *http.Request) (*session, error) {
	key, user, cfg, err := s.identify(r)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if sess, ok := s.sessions[key]; ok {
		sess.store.lastUsed = s.opts.Now()
		return sess, nil
	}
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = 50, 100
	cfg.WarningHandler = rest.NoWarnings{}
	scheme, err := kubescheme.New()
	if err != nil {
		return nil, err
	}
	c, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, fmt.Errorf("connecting to the cluster: %w", err)
	}
	sess := &session{user: user, config: cfg, client: c, store: newStore()}
	ctx, cancel := context.WithCancel(s.ctx)
	sess.store.stop, sess.store.lastUsed = cancel, s.opts.Now()
	go sess.store.start(ctx, cfg, c, s.opts.Namespaces)
	s.sessions[key] = sess
	return sess, nil
}

// expireSessions stops the watches of people who have not asked for anything in a while;
// their next request starts a fresh one (and sees new RBAC bindings).
func (s *Server) expireSessions() {
	tick := time.NewTicker(time.Minute)
	defer tick.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-tick.C:
		}
		s.mu.Lock()
		for key, sess := range s.sessions {
			if s.opts.Now().Sub(sess.store.lastUsed) > s.opts.SessionIdle && len(sess.store.subs) == 0 {
				sess.store.stop()
				delete(s.sessions, key)
			}
		}
		s.mu.Unlock()
	}
}

// waitReady waits for the session's first list, bounded by the request.
func (sess *session) waitReady(ctx context.Context) error {
	select {
	case <-sess.store.ready:
		return sess.store.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// stateNames are the states in the overview's order, for the templates.
var stateNames = runstatus.States
