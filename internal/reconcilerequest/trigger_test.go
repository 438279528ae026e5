package reconcilerequest

import "testing"

func TestTriggeredByReadsWhatTriggerOfWrites(t *testing.T) {
	r := Request{Trigger: TriggerOf("ImageRollout", "team-a", "web")}
	if ns, name, ok := r.TriggeredBy("ImageRollout"); !ok || ns != "team-a" || name != "web" {
		t.Fatalf("TriggeredBy(ImageRollout) = %q, %q, %v", ns, name, ok)
	}
	for _, c := range []struct{ trigger, kind string }{
		{TriggerOf("ImagePolicy", "team-a", "web"), "ImageRollout"}, // another kind
		{"ImageRollout/web", "ImageRollout"},                        // no namespace
		{"", "ImageRollout"},                                        // the KCLRun itself
	} {
		if ns, name, ok := (Request{Trigger: c.trigger}).TriggeredBy(c.kind); ok {
			t.Errorf("%q: TriggeredBy(%s) = %q, %q, true; want false", c.trigger, c.kind, ns, name)
		}
	}
}
