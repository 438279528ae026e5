package shard

import (
	"errors"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// The unsharded names are what every release before shards used: existing streams,
// consumers, buckets and Leases must keep their names.
func TestUnshardedNamesAreUnchanged(t *testing.T) {
	var n Name
	for got, want := range map[string]string{
		n.Stream():                  "FKC_RECONCILE_V1",
		n.SubjectPrefix():           "fkc.v1.reconcile",
		n.SubjectFilter():           "fkc.v1.reconcile.>",
		n.Consumer():                "applier",
		n.LeaseBucket():             "FKC_APPLIER_LEASES_V1",
		n.FingerprintBucket():       "FKC_APPLIER_APPLIED_V1",
		n.WatcherLeaderElectionID(): "flux-kcl-controller-watcher",
		n.InboxPrefix("applier"):    "_INBOX_applier",
		n.ConnectionName("watcher"): "flux-kcl-watcher",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

func TestShardNames(t *testing.T) {
	n := Name("shard1")
	for got, want := range map[string]string{
		n.Stream():                  "FKC_RECONCILE_V1_shard1",
		n.SubjectPrefix():           "fkc.v1.shard.shard1.reconcile",
		n.SubjectFilter():           "fkc.v1.shard.shard1.reconcile.>",
		n.Consumer():                "applier-shard1",
		n.LeaseBucket():             "FKC_APPLIER_LEASES_V1_shard1",
		n.FingerprintBucket():       "FKC_APPLIER_APPLIED_V1_shard1",
		n.WatcherLeaderElectionID(): "flux-kcl-controller-watcher-shard1",
		n.InboxPrefix("applier"):    "_INBOX_applier_shard1",
		n.ConnectionName("watcher"): "flux-kcl-watcher-shard1",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

// A shard named like a token of the unsharded subjects still gets subjects of its own.
func TestShardSubjectsDoNotOverlap(t *testing.T) {
	unsharded := Name("").SubjectPrefix() + "."
	for _, n := range []Name{"reconcile", "v1", "shard", "a", "a-b"} {
		if strings.HasPrefix(n.SubjectPrefix()+".", unsharded) {
			t.Errorf("shard %q: %s lies under the unsharded %s>", n, n.SubjectPrefix(), unsharded)
		}
	}
	if strings.HasPrefix(Name("a-b").SubjectPrefix()+".", Name("a").SubjectPrefix()+".") {
		t.Error("shard a-b lies under shard a")
	}
}

func TestParse(t *testing.T) {
	for _, ok := range []string{"", "a", "shard1", "eu-west-1", strings.Repeat("a", MaxLength)} {
		if _, err := Parse(ok); err != nil {
			t.Errorf("Parse(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"Shard1", "a.b", "a*", "a>", "a b", "a/b", "a_b", "-a", "a-", "ä", strings.Repeat("a", MaxLength+1)} {
		if _, err := Parse(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("Parse(%q) = %v, want ErrInvalid", bad, err)
		}
	}
}

func TestFlagRefusesAnInvalidName(t *testing.T) {
	var n Name
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	fs.SetOutput(&strings.Builder{})
	BindFlag(fs, &n)
	err := fs.Parse([]string{"--shard=Shard.1"})
	if err == nil || !strings.Contains(err.Error(), "--shard") || !errors.Is(err, ErrInvalid) {
		t.Fatalf("parse error %v, want one naming --shard and wrapping ErrInvalid", err)
	}
	if err := fs.Parse([]string{"--shard=shard1"}); err != nil || n != "shard1" {
		t.Fatalf("--shard=shard1: %v, %q", err, n)
	}
}
