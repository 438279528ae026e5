package install_test

import (
	"crypto/tls"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kcl-lang/flux-kcl-controller/test/harness/pki"
)

// natsClusterValues is the values set of the bundled three-server JetStream cluster.
const natsClusterValues = "ci/nats-cluster-values.yaml"

// The bundled NATS as a cluster: a StatefulSet of three servers whose routes reach every pod
// by its stable name, a store per pod, a disruption budget, and the services given every
// server's URL and three replicas of the stream and the key-value buckets.
func TestChartNATSCluster(t *testing.T) {
	g := NewWithT(t)
	objs := renderChart(t, []string{natsClusterValues}, nil)
	var sts appsv1.StatefulSet
	g.Expect(find(objs, "StatefulSet", "kcl-nats")).NotTo(BeNil())
	convert(t, find(objs, "StatefulSet", "kcl-nats"), &sts)
	g.Expect(sts.Spec.Replicas).To(HaveValue(BeNumerically("==", 3)))

	// The governing Service is headless and publishes pods before they are ready: the routes
	// must resolve for the servers to become ready at all.
	var headless corev1.Service
	g.Expect(find(objs, "Service", sts.Spec.ServiceName)).NotTo(BeNil(), sts.Spec.ServiceName)
	convert(t, find(objs, "Service", sts.Spec.ServiceName), &headless)
	g.Expect(headless.Spec.ClusterIP).To(Equal(corev1.ClusterIPNone))
	g.Expect(headless.Spec.PublishNotReadyAddresses).To(BeTrue())
	g.Expect(headless.Spec.Selector).To(Equal(sts.Spec.Selector.MatchLabels))
	g.Expect(headless.Spec.Ports).To(ContainElement(HaveField("Port", int32(6222))))

	// Each pod's JetStream store is its own volume.
	g.Expect(sts.Spec.VolumeClaimTemplates).To(ConsistOf(HaveField("ObjectMeta.Name", "data")))
	g.Expect(sts.Spec.Template.Spec.Containers[0].VolumeMounts).To(ContainElement(And(HaveField("Name", "data"), HaveField("MountPath", "/data"))))
	g.Expect(sts.Spec.Template.Spec.Containers[0].Ports).To(ContainElement(And(HaveField("Name", "cluster"), HaveField("ContainerPort", int32(6222)))))
	g.Expect(find(objs, "PodDisruptionBudget", "kcl-nats")).NotTo(BeNil())
	var pdb policyv1.PodDisruptionBudget
	convert(t, find(objs, "PodDisruptionBudget", "kcl-nats"), &pdb)
	g.Expect(pdb.Spec.MaxUnavailable).To(HaveValue(HaveField("IntVal", int32(1))), "a quorum of two stays up")
	g.Expect(pdb.Spec.Selector.MatchLabels).To(Equal(sts.Spec.Selector.MatchLabels))

	// Every pod's stable name, as the routes and the services must reach it.
	var pods []string
	for i := range int(*sts.Spec.Replicas) {
		pods = append(pods, fmt.Sprintf("%s-%d.%s.%s.svc", sts.Name, i, sts.Spec.ServiceName, releaseNamespace))
	}

	// The rendered configuration, read by nats-server's own parser as each pod reads it.
	for i := range pods {
		opts := parseNATSConfig(t, objs, fmt.Sprintf("%s-%d", sts.Name, i))
		g.Expect(opts.ServerName).To(Equal(fmt.Sprintf("%s-%d", sts.Name, i)), "JetStream clustering names every server")
		g.Expect(opts.JetStream).To(BeTrue())
		g.Expect(opts.StoreDir).To(HavePrefix("/data/"))
		g.Expect(opts.Cluster.Name).To(Equal("kcl-nats"))
		g.Expect(opts.Cluster.Port).To(Equal(6222))
		var routes []string
		for _, u := range opts.Routes {
			routes = append(routes, u.Host)
		}
		want := make([]string, len(pods))
		for j, pod := range pods {
			want[j] = pod + ":6222"
		}
		g.Expect(routes).To(Equal(want), "a route to every server, itself included (skipped by the server)")
		// TLS: clients and routes; the routes verify each other's certificate.
		g.Expect(opts.TLSConfig).NotTo(BeNil())
		g.Expect(opts.Cluster.TLSConfig).NotTo(BeNil())
		g.Expect(opts.Cluster.TLSConfig.ClientAuth).To(Equal(tls.RequireAndVerifyClientCert))
		g.Expect(opts.Users).To(HaveLen(2), "the per-service users")
	}

	// The services: every server's URL, three copies of the stream and the buckets.
	var urls []string
	for _, pod := range pods {
		urls = append(urls, "nats://"+pod+":4222")
	}
	watcher := serviceArgs(t, objs, "kcl-watcher", "watcher")
	g.Expect(strings.Split(watcher.NATS.URL, ",")).To(Equal(urls))
	g.Expect(watcher.Watcher.JetStreamReplicas).To(Equal(3))
	applier := serviceArgs(t, objs, "kcl-applier", "applier")
	g.Expect(strings.Split(applier.NATS.URL, ",")).To(Equal(urls))
	g.Expect(applier.Applier.JetStreamReplicas).To(Equal(3))

	// Routes only between the servers.
	np := networkPolicy(t, objs, "kcl-nats")
	var routePeers []map[string]string
	for _, rule := range np.Spec.Ingress {
		for _, p := range rule.Ports {
			if p.Port.String() == "cluster" {
				for _, from := range rule.From {
					routePeers = append(routePeers, from.PodSelector.MatchLabels)
				}
			}
		}
	}
	g.Expect(routePeers).To(Equal([]map[string]string{sts.Spec.Selector.MatchLabels}))
}

// Five servers give five copies; other sizes, or a cluster beside nats.url, are refused.
func TestChartNATSClusterSizes(t *testing.T) {
	g := NewWithT(t)
	cluster := func(replicas int) map[string]any {
		return map[string]any{"nats": map[string]any{"cluster": map[string]any{"enabled": true, "replicas": replicas}}}
	}
	objs := renderChart(t, nil, cluster(5))
	var sts appsv1.StatefulSet
	convert(t, find(objs, "StatefulSet", "kcl-nats"), &sts)
	g.Expect(sts.Spec.Replicas).To(HaveValue(BeNumerically("==", 5)))
	g.Expect(serviceArgs(t, objs, "kcl-watcher", "watcher").Watcher.JetStreamReplicas).To(Equal(5))
	g.Expect(strings.Split(serviceArgs(t, objs, "kcl-applier", "applier").NATS.URL, ",")).To(HaveLen(5))
	for _, n := range []int{1, 2, 4, 7} {
		_, err := renderChartObjects(nil, cluster(n))
		g.Expect(err).To(MatchError(ContainSubstring("nats.cluster.replicas must be 3 or 5")), "%d", n)
	}
	withURL := cluster(3)
	withURL["nats"].(map[string]any)["url"] = "nats://nats.nats-system.svc:4222"
	_, err := renderChartObjects(nil, withURL)
	g.Expect(err).To(MatchError(ContainSubstring("nats.url")))

	// The single server stays as it was: no routes, no replicas flags.
	single := renderChart(t, nil, nil)
	g.Expect(find(single, "Service", "kcl-nats-headless")).To(BeNil())
	g.Expect(find(single, "PodDisruptionBudget", "kcl-nats")).To(BeNil())
	g.Expect(parseNATSConfig(t, single, "kcl-nats-0").Routes).To(BeEmpty())
	g.Expect(serviceArgs(t, single, "kcl-watcher", "watcher").Watcher.JetStreamReplicas).To(Equal(1))
	g.Expect(serviceArgs(t, single, "kcl-applier", "applier").Applier.JetStreamReplicas).To(Equal(1))
}

// parseNATSConfig reads the bundled server's nats.conf with nats-server's parser as the pod
// named pod does: its environment (POD_NAME, the users' Secrets) set, and the mounted TLS
// Secret replaced by throwaway certificates.
func parseNATSConfig(t *testing.T, objs []*unstructured.Unstructured, pod string) *server.Options {
	t.Helper()
	return parseNATSConfigWith(t, objs, pod, pki.NewCA(t, "nats CA").Issue(t, "kcl-nats", "kcl-nats."+releaseNamespace+".svc"))
}

// parseNATSConfigWith is parseNATSConfig with the given certificates in the TLS Secret.
func parseNATSConfigWith(t *testing.T, objs []*unstructured.Unstructured, pod string, certs pki.Files) *server.Options {
	t.Helper()
	cm := find(objs, "ConfigMap", "kcl-nats-config")
	if cm == nil {
		t.Fatal("no ConfigMap kcl-nats-config")
	}
	conf, _, _ := unstructured.NestedString(cm.Object, "data", "nats.conf")
	conf = strings.ReplaceAll(conf, "/etc/nats/tls/", certs.Dir+"/")
	path := filepath.Join(t.TempDir(), "nats.conf")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("POD_NAME", pod)
	for _, who := range []string{"WATCHER", "APPLIER"} {
		t.Setenv(who+"_USER", who)
		t.Setenv(who+"_PASSWORD", "pw")
	}
	opts, err := server.ProcessConfigFile(path)
	if err != nil {
		t.Fatalf("nats.conf of %s: %v\n%s", pod, err, conf)
	}
	return opts
}

// serviceArgs parses the args of a Deployment's container as the binary's main does.
func serviceArgs(t *testing.T, objs []*unstructured.Unstructured, deploymentName, binary string) *serviceFlags {
	t.Helper()
	d := deployment(t, find(objs, "Deployment", deploymentName))
	flags, err := parseArgs(binary, d.Spec.Template.Spec.Containers[0].Args)
	if err != nil {
		t.Fatal(err)
	}
	return flags
}
