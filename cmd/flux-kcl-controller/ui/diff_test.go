package ui_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/ui"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
)

// The diff button compiles the KCLRun's program from its source's artifact and dry-runs it
// as the user, with `diff`'s code: a drifted ConfigMap shows as a unified diff, a Secret's
// values never reach the page.
func TestDiffOnDemand(t *testing.T) {
	e := cluster(t)
	ctx := context.Background()
	ns := namespace(t, "diff")
	artifacts, err := artifactserver.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(artifacts.Close)
	program := map[string]string{"main.k": `items = [
    {apiVersion = "v1", kind = "ConfigMap", metadata.name = "settings", data = {color = "blue"}}
    {apiVersion = "v1", kind = "Secret", metadata.name = "creds", stringData = {password = "s3cret-new"}}
]
`}
	art, err := artifacts.PublishFiles(artifactserver.ArtifactPath("GitRepository", ns, "web", "r1.tar.gz"), program, rev1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := artifactserver.CreateSource(ctx, e.Client, "GitRepository", ns, "web", art); err != nil {
		t.Fatal(err)
	}
	live := []client.Object{
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "settings"}, Data: map[string]string{"color": "red"}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "creds"}, StringData: map[string]string{"password": "hunter2-old"}},
	}
	for _, o := range live {
		if err := e.Client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	newRun(t, ns, "web", nil, ready(rev1))
	base := serve(t, ui.Options{})
	tb := tab(t, nil)
	open(t, tb, base+"/kclruns/"+ns+"/web")
	waitText(t, tb, "Diff the program", false)
	if err := chromedp.Do(tb, chromedp.Click(chromedp.Search(`//button[@data-diff]`))); err != nil {
		t.Fatal(err)
	}
	var out string
	deadline := time.Now().Add(waitTimeout)
	for time.Now().Before(deadline) {
		out, _ = chromedp.Run(tb, chromedp.TextContent(chromedp.CSS("#diff")))
		if out != "" && !strings.HasPrefix(out, "computing") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, want := range []string{"► ConfigMap/" + ns + "/settings drifted", "-  color: red", "+  color: blue", "► Secret/" + ns + "/creds drifted", "***"} {
		if !strings.Contains(out, want) {
			t.Errorf("the diff lacks %q:\n%s", want, out)
		}
	}
	for _, secret := range []string{"hunter2", "s3cret"} {
		if strings.Contains(out, secret) {
			t.Errorf("the diff shows Secret data %q:\n%s", secret, out)
		}
	}
}
