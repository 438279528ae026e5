package install_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kcl-lang/flux-kcl-controller/internal/natsconn"
)

// The bundled NATS server's users get exactly the subjects internal/natsconn grants each
// identity (the chart cannot import Go, so its copy is compared here).
func TestChartNATSPermissionsMatchNatsconn(t *testing.T) {
	g := NewWithT(t)
	objs := renderChart(t, nil, map[string]any{"nats": map[string]any{"auth": map[string]any{"enabled": true}}})
	conf, _, _ := unstructured.NestedString(find(objs, "ConfigMap", "kcl-nats-config").Object, "data", "nats.conf")
	path := filepath.Join(t.TempDir(), "nats.conf")
	g.Expect(os.WriteFile(path, []byte(conf), 0o600)).To(Succeed())
	for _, who := range []string{"WATCHER", "APPLIER"} {
		t.Setenv(who+"_USER", who)
		t.Setenv(who+"_PASSWORD", "pw")
	}
	opts, err := server.ProcessConfigFile(path)
	g.Expect(err).NotTo(HaveOccurred())
	want := map[string]natsconn.Permissions{
		"WATCHER": natsconn.WatcherPermissions(""),
		"APPLIER": natsconn.ApplierPermissions("", true),
	}
	g.Expect(opts.Users).To(HaveLen(2))
	for _, u := range opts.Users {
		g.Expect(want).To(HaveKey(u.Username))
		g.Expect(u.Permissions.Publish.Allow).To(Equal(want[u.Username].Publish), u.Username)
		g.Expect(u.Permissions.Subscribe.Allow).To(Equal(want[u.Username].Subscribe), u.Username)
	}
}
