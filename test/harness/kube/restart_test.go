package kube_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kclv1alpha1 "github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/kube"
)

// A restarted apiserver keeps etcd's data, its address and its certificates: the admin
// client, the kubeconfig file and the CRDs work again without being rebuilt.
func TestRestartAPIServerKeepsDataAndCredentials(t *testing.T) {
	ctx := context.Background()
	ns, err := env.CreateNamespace(ctx, "restart")
	if err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "kept"}, Data: map[string]string{"k": "v"}}
	if err := env.Client.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}

	if err := env.StopAPIServer(); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(cm), &corev1.ConfigMap{}); err == nil {
		t.Fatal("the apiserver still answers after StopAPIServer")
	}
	start := time.Now()
	if err := env.StartAPIServer(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("apiserver serving KCLRuns again %s after the start", time.Since(start).Round(time.Millisecond))

	got := &corev1.ConfigMap{}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(cm), got); err != nil {
		t.Fatalf("reading the ConfigMap after the restart: %v", err)
	}
	if got.Data["k"] != "v" {
		t.Fatalf("ConfigMap data after restart = %v", got.Data)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", env.Kubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	fromFile, err := client.New(cfg, client.Options{Scheme: kube.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	if err := fromFile.List(ctx, &kclv1alpha1.KCLRunList{}, client.InNamespace(ns)); err != nil {
		t.Fatalf("listing KCLRuns with the kubeconfig file after the restart: %v", err)
	}
}
