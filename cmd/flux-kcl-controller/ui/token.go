package ui

import (
	"net/http"
	"strings"
)

// tokenCookie holds the token a user signed in with (AuthToken). HttpOnly: no script reads
// it; SameSite=Strict: no other site's page sends it.
const tokenCookie = "fkc-token"

// bearerToken is the request's token: an Authorization header (set by a proxy that signs
// users in, e.g. with their OIDC ID token), else the sign-in cookie.
func bearerToken(r *http.Request) string {
	if h := r.Header.Get("Authorization"); h != "" {
		if t, ok := strings.CutPrefix(h, "Bearer "); ok {
			return strings.TrimSpace(t)
		}
	}
	if c, err := r.Cookie(tokenCookie); err == nil {
		return c.Value
	}
	return ""
}

func (s *Server) loginPage(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, "login", http.StatusOK, page{Title: "Sign in"})
}

// login keeps the token in the cookie; the apiserver checks it at the next page.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	token := strings.TrimSpace(r.PostFormValue("token"))
	if token == "" {
		s.render(w, r, "login", http.StatusBadRequest, page{Title: "Sign in", Data: "Paste a token."})
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: tokenCookie, Value: token, Path: "/", HttpOnly: true,
		Secure: r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https", SameSite: http.SameSiteStrictMode,
	})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}
