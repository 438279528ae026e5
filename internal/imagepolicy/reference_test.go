package imagepolicy

import "testing"

func TestParseReference(t *testing.T) {
	for in, want := range map[string]Reference{
		"nginx":                        {Repository: "nginx"},
		"nginx:1.7.7":                  {Repository: "nginx", Tag: "1.7.7"},
		"localhost:5000/app":           {Repository: "localhost:5000/app"},
		"localhost:5000/app:v1":        {Repository: "localhost:5000/app", Tag: "v1"},
		"ghcr.io/org/app:v1@sha256:ab": {Repository: "ghcr.io/org/app", Tag: "v1", Digest: "sha256:ab"},
		"ghcr.io/org/app@sha256:ab":    {Repository: "ghcr.io/org/app", Digest: "sha256:ab"},
	} {
		got, err := ParseReference(in)
		if err != nil || got != want {
			t.Errorf("%q: got %+v, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "nginx:${x}", "a b", "app@nodigest", `x"y`} {
		if _, err := ParseReference(in); err == nil {
			t.Errorf("%q: want an error", in)
		}
	}
}

func TestNormalizeRepository(t *testing.T) {
	same := [][]string{
		{"nginx", "docker.io/library/nginx", "index.docker.io/library/nginx", "registry-1.docker.io/library/nginx"},
		{"org/app", "docker.io/org/app"},
		{"ghcr.io/org/app", "GHCR.io/org/app"},
	}
	for _, group := range same {
		for _, r := range group[1:] {
			if !SameRepository(group[0], r) {
				t.Errorf("%s and %s should be one repository (%s, %s)", group[0], r, NormalizeRepository(group[0]), NormalizeRepository(r))
			}
		}
	}
	for _, pair := range [][2]string{{"nginx", "ghcr.io/nginx"}, {"nginx", "org/nginx"}, {"ghcr.io/a/app", "ghcr.io/b/app"}} {
		if SameRepository(pair[0], pair[1]) {
			t.Errorf("%s and %s are different repositories", pair[0], pair[1])
		}
	}
}
