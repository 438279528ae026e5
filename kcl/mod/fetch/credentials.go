package fetch

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/google/go-containerregistry/pkg/authn"
)

// Credentials are registry logins from a Docker config JSON (the data of a
// kubernetes.io/dockerconfigjson Secret). They never appear in errors or logs:
// String prints only which hosts they cover.
type Credentials struct {
	auths map[string]authn.AuthConfig // by host
	key   string
}

// ParseDockerConfig reads {"auths": {"host": {"auth": base64(user:pass)} or
// {"username", "password"} or {"identitytoken"}}}. Hosts may be written as
// URLs (https://ghcr.io/v1/); they are matched by host name.
func ParseDockerConfig(data []byte) (*Credentials, error) {
	var cfg struct {
		Auths map[string]struct {
			Auth          string `json:"auth"`
			Username      string `json:"username"`
			Password      string `json:"password"`
			IdentityToken string `json:"identitytoken"`
			RegistryToken string `json:"registrytoken"`
		} `json:"auths"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		// The JSON error could quote a fragment of the secret: do not wrap it.
		return nil, errors.New("registry credentials are not a Docker config JSON ({\"auths\": {...}})")
	}
	c := &Credentials{auths: map[string]authn.AuthConfig{}}
	for host, a := range cfg.Auths {
		ac := authn.AuthConfig{Username: a.Username, Password: a.Password, IdentityToken: a.IdentityToken, RegistryToken: a.RegistryToken}
		if a.Auth != "" {
			raw, err := base64.StdEncoding.DecodeString(a.Auth)
			if err != nil {
				return nil, fmt.Errorf("registry credentials for %s: the auth field is not base64", normaliseHost(host))
			}
			user, pass, ok := strings.Cut(string(raw), ":")
			if !ok {
				return nil, fmt.Errorf("registry credentials for %s: the auth field is not user:password", normaliseHost(host))
			}
			ac.Username, ac.Password = user, pass
		}
		c.auths[normaliseHost(host)] = ac
	}
	// The key identifies these credentials in cache keys without revealing them.
	h := sha256.New()
	hosts := c.Hosts()
	for _, host := range hosts {
		b, _ := json.Marshal(c.auths[host])
		fmt.Fprintf(h, "%s\x00%d\x00%s\x00", host, len(b), b)
	}
	c.key = "creds-" + hex.EncodeToString(h.Sum(nil))[:32]
	return c, nil
}

// Key identifies the credentials (a hash), for cache keys; "" for none.
func (c *Credentials) Key() string {
	if c == nil {
		return ""
	}
	return c.key
}

// Hosts are the registries the credentials cover, sorted.
func (c *Credentials) Hosts() []string {
	if c == nil {
		return nil
	}
	hosts := make([]string, 0, len(c.auths))
	for h := range c.auths {
		hosts = append(hosts, h)
	}
	sort.Strings(hosts)
	return hosts
}

func (c *Credentials) String() string {
	return fmt.Sprintf("registry credentials for %v", c.Hosts())
}

// Resolve implements authn.Keychain.
func (c *Credentials) Resolve(target authn.Resource) (authn.Authenticator, error) {
	if c == nil {
		return authn.Anonymous, nil
	}
	if a, ok := c.auths[normaliseHost(target.RegistryStr())]; ok {
		return authn.FromConfig(a), nil
	}
	return authn.Anonymous, nil
}

// normaliseHost turns "https://index.docker.io/v1/" into "index.docker.io".
func normaliseHost(s string) string {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "https://"), "http://")
	s, _, _ = strings.Cut(s, "/")
	return strings.ToLower(s)
}
