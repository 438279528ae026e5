package kube_test

import (
	"context"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func TestServerSideApplyConfigMap(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns, err := env.CreateNamespace(ctx, "apply")
	g.Expect(err).NotTo(HaveOccurred())

	cm := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "smoke"},
		Data:       map[string]string{"key": "value"},
	}
	g.Expect(env.Client.Patch(ctx, cm, client.Apply, client.FieldOwner("harness"), client.ForceOwnership)).To(Succeed())

	var got corev1.ConfigMap
	g.Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(cm), &got)).To(Succeed())
	g.Expect(got.Data).To(Equal(map[string]string{"key": "value"}))
	g.Expect(got.ManagedFields).To(ContainElement(And(
		HaveField("Manager", "harness"),
		HaveField("Operation", metav1.ManagedFieldsOperationApply),
	)))
}

func TestKubeconfigFileReachesTheServer(t *testing.T) {
	g := NewWithT(t)
	cfg, err := clientcmd.BuildConfigFromFlags("", env.Kubeconfig())
	g.Expect(err).NotTo(HaveOccurred())
	c, err := client.New(cfg, client.Options{})
	g.Expect(err).NotTo(HaveOccurred())
	var nss corev1.NamespaceList
	g.Expect(c.List(context.Background(), &nss)).To(Succeed())
	g.Expect(nss.Items).To(ContainElement(HaveField("Name", "default")))
}

func TestServiceIPsComeFromTheConfiguredRange(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns, err := env.CreateNamespace(ctx, "svc")
	g.Expect(err).NotTo(HaveOccurred())
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}},
	}
	g.Expect(env.Client.Create(ctx, svc)).To(Succeed())
	g.Expect(svc.Spec.ClusterIP).To(HavePrefix("10.0."))
}

func TestAddedUsersAreSubjectToRBAC(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	cfg, err := env.AddUser("harness-nobody")
	g.Expect(err).NotTo(HaveOccurred())
	c, err := client.New(cfg, client.Options{})
	g.Expect(err).NotTo(HaveOccurred())
	var cms corev1.ConfigMapList
	err = c.List(ctx, &cms, client.InNamespace("default"))
	g.Expect(apierrors.IsForbidden(err)).To(BeTrue(), "got %v", err)
}
