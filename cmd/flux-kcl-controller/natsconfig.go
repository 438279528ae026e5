package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/kcl-lang/flux-kcl-controller/internal/natsconn"
	"github.com/kcl-lang/flux-kcl-controller/internal/shard"
)

// runNATSConfig prints the nats-server authorization (and tls) blocks giving the
// watcher and the applier only their subjects, for a NATS server the operator runs;
// with --shard, the subjects, stream, consumer and buckets of that shard.
func runNATSConfig(args []string) error {
	var cfg natsconn.ServerConfig
	var watcherPasswordFile, applierPasswordFile string
	var tls natsconn.ServerTLS
	fs := pflag.NewFlagSet("nats-config", pflag.ContinueOnError)
	shard.BindFlag(fs, &cfg.Shard)
	fs.StringVar(&cfg.Watcher.Name, "watcher-user", natsconn.WatcherIdentity, "The watcher's NATS user name.")
	fs.StringVar(&watcherPasswordFile, "watcher-password-file", "", "A file holding the watcher's password (plain or bcrypt).")
	fs.StringVar(&cfg.Watcher.NKey, "watcher-nkey", "", "The watcher's NKey public key (U...), instead of a password.")
	fs.StringVar(&cfg.Applier.Name, "applier-user", natsconn.ApplierIdentity, "The applier's NATS user name.")
	fs.StringVar(&applierPasswordFile, "applier-password-file", "", "A file holding the applier's password (plain or bcrypt).")
	fs.StringVar(&cfg.Applier.NKey, "applier-nkey", "", "The applier's NKey public key (U...), instead of a password.")
	fs.BoolVar(&cfg.ApplierDriftRequests, "drift-requests", true, "Let the applier publish reconcile requests; keep it equal to the applier's --drift-detection.")
	fs.StringVar(&tls.CertFile, "tls-cert-file", "", "The server certificate path, as the NATS server sees it; empty writes no tls block.")
	fs.StringVar(&tls.KeyFile, "tls-key-file", "", "The server key path, as the NATS server sees it.")
	fs.StringVar(&tls.CAFile, "tls-ca-file", "", "The CA path verifying client certificates, as the NATS server sees it.")
	fs.BoolVar(&tls.Verify, "tls-verify", false, "Require client certificates signed by --tls-ca-file.")
	if err := fs.Parse(args); err != nil {
		if err == pflag.ErrHelp {
			return nil
		}
		return err
	}
	for _, p := range []struct {
		file string
		user *natsconn.User
	}{{watcherPasswordFile, &cfg.Watcher}, {applierPasswordFile, &cfg.Applier}} {
		if p.file == "" {
			continue
		}
		b, err := os.ReadFile(p.file)
		if err != nil {
			return fmt.Errorf("reading password: %w", err)
		}
		p.user.Password = strings.TrimRight(string(b), "\r\n")
	}
	if tls.CertFile != "" {
		cfg.TLS = &tls
	}
	out, err := natsconn.RenderServerConfig(cfg)
	if err != nil {
		return err
	}
	fmt.Print(out)
	return nil
}
