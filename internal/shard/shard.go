// Package shard derives every name one controller instance uses on a NATS server it
// may share with other instances: the reconcile-request stream, its subjects and
// durable consumer, the applier's key-value buckets, the reply inboxes, and the
// watcher's leader-election Lease. Flux shards a controller with
// --watch-label-selector and derives its leader-election id from the selector; here
// --shard names the instance and everything else follows from it, so shards with
// their own selectors can run against one NATS without reading each other's requests.
//
// The zero Name is the unsharded instance: its names are those of every release
// before shards existed, so existing deployments and their JetStream state keep
// working.
package shard

import (
	"errors"
	"fmt"
	"regexp"

	"github.com/spf13/pflag"
)

// The unsharded names. A shard appends itself to each (see the methods of Name).
const (
	reconcileStream   = "FKC_RECONCILE_V1"
	subjectRoot       = "fkc.v1"
	applierConsumer   = "applier"
	leaseBucket       = "FKC_APPLIER_LEASES_V1"
	fingerprintBucket = "FKC_APPLIER_APPLIED_V1"
	watcherLease      = "flux-kcl-controller-watcher"
	inboxRoot         = "_INBOX_"
)

// MaxLength bounds a shard name: a DNS label, since it ends up in a Lease name.
const MaxLength = 63

// Name is a shard's name; "" is the unsharded instance.
//
// A name is a lowercase DNS label (letters, digits, '-', starting and ending with a
// letter or digit): the strictest of the places it goes, which are JetStream stream,
// consumer and bucket names (no '.', '*', '>', whitespace or path separators), a NATS
// subject token, and a Kubernetes Lease name.
type Name string

var label = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// ErrInvalid is what Validate and Parse return for a name that cannot be a shard.
var ErrInvalid = errors.New("invalid shard name")

// Parse checks s and returns it as a Name; "" is the unsharded instance.
func Parse(s string) (Name, error) {
	n := Name(s)
	return n, n.Validate()
}

// Validate reports why n cannot name a shard.
func (n Name) Validate() error {
	switch {
	case n == "":
		return nil
	case len(n) > MaxLength:
		return fmt.Errorf("%w %q: longer than %d characters", ErrInvalid, string(n), MaxLength)
	case !label.MatchString(string(n)):
		return fmt.Errorf("%w %q: use lowercase letters, digits and '-', starting and ending with a letter or digit (it names NATS streams, buckets and subjects and a Kubernetes Lease)", ErrInvalid, string(n))
	}
	return nil
}

// suffix joins the shard to an unsharded name with sep; nothing for the unsharded one.
func (n Name) suffix(base, sep string) string {
	if n == "" {
		return base
	}
	return base + sep + string(n)
}

// Stream is the JetStream work-queue stream of the shard's reconcile requests:
// FKC_RECONCILE_V1, or FKC_RECONCILE_V1_<shard>.
func (n Name) Stream() string { return n.suffix(reconcileStream, "_") }

// SubjectPrefix is the root of the shard's reconcile-request subjects, followed by
// <namespace>.<name>: fkc.v1.reconcile, or fkc.v1.shard.<shard>.reconcile. A shard's
// subjects lie outside the unsharded filter fkc.v1.reconcile.> (JetStream refuses two
// streams whose subjects overlap) and outside every other shard's.
func (n Name) SubjectPrefix() string {
	if n == "" {
		return subjectRoot + ".reconcile"
	}
	return subjectRoot + ".shard." + string(n) + ".reconcile"
}

// SubjectFilter matches the reconcile requests of every KCLRun of the shard.
func (n Name) SubjectFilter() string { return n.SubjectPrefix() + ".>" }

// Consumer is the durable pull consumer the shard's appliers share: applier, or
// applier-<shard>.
func (n Name) Consumer() string { return n.suffix(applierConsumer, "-") }

// LeaseBucket is the key-value bucket of the per-KCLRun write leases:
// FKC_APPLIER_LEASES_V1, or FKC_APPLIER_LEASES_V1_<shard>.
func (n Name) LeaseBucket() string { return n.suffix(leaseBucket, "_") }

// FingerprintBucket is the key-value bucket of the inputs of the last apply per
// KCLRun: FKC_APPLIER_APPLIED_V1, or FKC_APPLIER_APPLIED_V1_<shard>.
func (n Name) FingerprintBucket() string { return n.suffix(fingerprintBucket, "_") }

// KeyValueStream is the stream JetStream keeps a key-value bucket in.
func KeyValueStream(bucket string) string { return "KV_" + bucket }

// WatcherLeaderElectionID names the Lease the shard's watcher replicas compete for:
// flux-kcl-controller-watcher, or flux-kcl-controller-watcher-<shard>.
func (n Name) WatcherLeaderElectionID() string { return n.suffix(watcherLease, "-") }

// InboxPrefix is the reply-subject prefix of an identity's connection (watcher,
// applier): _INBOX_<identity>, or _INBOX_<identity>_<shard>. A prefix per identity
// and shard lets the server configuration give each connection its own replies only:
// a watcher cannot read the requests an applier pulls, nor one shard's applier
// another's.
func (n Name) InboxPrefix(identity string) string { return n.suffix(inboxRoot+identity, "_") }

// ConnectionName is the name an identity's connection shows in the server's
// monitoring: flux-kcl-<identity>, or flux-kcl-<identity>-<shard>.
func (n Name) ConnectionName(identity string) string { return n.suffix("flux-kcl-"+identity, "-") }

// FlagName is the flag every service binds the shard to.
const FlagName = "shard"

// BindFlag registers --shard on fs; the value is validated as it is parsed.
func BindFlag(fs *pflag.FlagSet, n *Name) {
	fs.Var((*flagValue)(n), FlagName, "Name of this controller shard (with --watch-label-selector): its NATS stream, subjects, consumer, key-value buckets and leader-election Lease are named after it, so several shards share one NATS. Empty, the default, is the unsharded instance.")
}

type flagValue Name

func (v *flagValue) String() string { return string(*v) }

func (v *flagValue) Type() string { return "string" }

func (v *flagValue) Set(s string) error {
	n, err := Parse(s)
	if err != nil {
		return err
	}
	*v = flagValue(n)
	return nil
}
