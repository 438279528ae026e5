package natsconn

import (
	"errors"
	"strings"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/internal/shard"
)

func TestValidateRefusesFlagsThatCannotWorkTogether(t *testing.T) {
	for name, c := range map[string]Config{
		"two methods":           {CredsFile: "a.creds", NKeySeedFile: "seed"},
		"user without password": {UserFile: "user"},
		"cert without key":      {TLSCertFile: "tls.crt"},
	} {
		if err := c.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if err := (Config{UserFile: "u", PasswordFile: "p", TLSCAFile: "ca.crt", TLSCertFile: "c", TLSKeyFile: "k"}).Validate(); err != nil {
		t.Errorf("a valid configuration refused: %v", err)
	}
}

func TestRenderRefusesAUserWithoutCredentials(t *testing.T) {
	_, err := RenderServerConfig(ServerConfig{Watcher: User{Name: "watcher"}, Applier: User{NKey: "UABC"}})
	if err == nil || !strings.Contains(err.Error(), "watcher") {
		t.Fatalf("got %v", err)
	}
}

func TestApplierPublishesRequestsOnlyForDriftDetection(t *testing.T) {
	has := func(p Permissions, subject string) bool {
		for _, s := range p.Publish {
			if s == subject {
				return true
			}
		}
		return false
	}
	subjects := shard.Name("").SubjectFilter()
	if has(ApplierPermissions("", false), subjects) || !has(ApplierPermissions("", true), subjects) {
		t.Fatal("the applier's right to publish reconcile requests must follow drift detection")
	}
}

func TestRenderRefusesAnInvalidShard(t *testing.T) {
	_, err := RenderServerConfig(ServerConfig{Shard: "a.b", Watcher: User{Name: "w", Password: "p"}, Applier: User{NKey: "UABC"}})
	if !errors.Is(err, shard.ErrInvalid) {
		t.Fatalf("got %v, want shard.ErrInvalid", err)
	}
}
