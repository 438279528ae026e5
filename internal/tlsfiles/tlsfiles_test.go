package tlsfiles

import (
	"crypto/tls"
	"io"
	"net"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/test/harness/pki"
)

// handshake runs one TLS connection between a server and a client config on loopback
// and returns the client's and the server's errors.
func handshake(t *testing.T, server, client *tls.Config, serverName string) (clientErr, serverErr error) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer lis.Close()
	serverDone := make(chan error, 1)
	go func() {
		conn, err := lis.Accept()
		if err != nil {
			serverDone <- err
			return
		}
		defer conn.Close()
		tc := tls.Server(conn, server)
		if err := tc.Handshake(); err != nil {
			serverDone <- err
			return
		}
		_, err = tc.Write([]byte("ok"))
		serverDone <- err
	}()
	c := client.Clone()
	if c.ServerName == "" {
		c.ServerName = serverName
	}
	conn, err := tls.Dial("tcp", lis.Addr().String(), c)
	if err == nil {
		// With TLS 1.3 a refused client certificate shows on the first read.
		buf := make([]byte, 2)
		_, err = io.ReadFull(conn, buf)
		_ = conn.Close()
	}
	return err, <-serverDone
}

func configs(t *testing.T, serverFiles, clientFiles Files) (*Reloader, *Reloader, *tls.Config, *tls.Config) {
	t.Helper()
	sr, err := NewReloader(serverFiles)
	if err != nil {
		t.Fatal(err)
	}
	cr, err := NewReloader(clientFiles)
	if err != nil {
		t.Fatal(err)
	}
	sr.MaxAge, cr.MaxAge = 0, 0 // read at every handshake: rotation shows at once
	server, err := ServerConfig(sr)
	if err != nil {
		t.Fatal(err)
	}
	client, err := ClientConfig(cr, "")
	if err != nil {
		t.Fatal(err)
	}
	return sr, cr, server, client
}

func files(f pki.Files) Files { return Files{CertFile: f.Cert, KeyFile: f.Key, CAFile: f.CA} }

func TestMutualTLSAcceptsOnlyCertificatesOfTheCA(t *testing.T) {
	ca := pki.NewCA(t, "workers CA")
	serverFiles := ca.Issue(t, "kcl-compiler", "kcl-compiler")
	clientFiles := ca.Issue(t, "applier")
	_, _, server, client := configs(t, files(serverFiles), files(clientFiles))

	if cErr, sErr := handshake(t, server, client, "kcl-compiler"); cErr != nil || sErr != nil {
		t.Fatalf("right certificates refused: client %v, server %v", cErr, sErr)
	}
	if cErr, _ := handshake(t, server, client, "kcl-resolver"); cErr == nil {
		t.Fatal("the client accepted a certificate for another name")
	}

	// No client certificate.
	noCert, err := NewReloader(Files{CAFile: clientFiles.CA})
	if err != nil {
		t.Fatal(err)
	}
	anonymous, _ := ClientConfig(noCert, "")
	if _, sErr := handshake(t, server, anonymous, "kcl-compiler"); sErr == nil {
		t.Fatal("the server accepted a client without a certificate")
	}

	// A client certificate of another CA.
	other := pki.NewCA(t, "other CA")
	stranger := other.Issue(t, "stranger")
	_, _, _, strangerClient := configs(t, files(serverFiles), Files{CertFile: stranger.Cert, KeyFile: stranger.Key, CAFile: clientFiles.CA})
	if _, sErr := handshake(t, server, strangerClient, "kcl-compiler"); sErr == nil {
		t.Fatal("the server accepted a certificate of another CA")
	}
	// A server of another CA.
	_, _, strangerServer, _ := configs(t, Files{CertFile: stranger.Cert, KeyFile: stranger.Key, CAFile: clientFiles.CA}, files(clientFiles))
	if cErr, _ := handshake(t, strangerServer, client, "stranger"); cErr == nil {
		t.Fatal("the client accepted a server certificate of another CA")
	}
}

// A Secret rotated to a new CA: the files change under running configs, the next
// handshakes use them, and certificates of the old CA stop working.
func TestRotatedFilesTakeEffectWithoutRestart(t *testing.T) {
	oldCA := pki.NewCA(t, "old CA")
	serverFiles := oldCA.Issue(t, "kcl-compiler", "kcl-compiler")
	clientFiles := oldCA.Issue(t, "applier")
	_, _, server, client := configs(t, files(serverFiles), files(clientFiles))
	staleFiles := oldCA.Issue(t, "stale applier")
	_, _, _, staleClient := configs(t, files(serverFiles), files(staleFiles))
	if cErr, sErr := handshake(t, server, client, "kcl-compiler"); cErr != nil || sErr != nil {
		t.Fatalf("before rotation: client %v, server %v", cErr, sErr)
	}

	newCA := pki.NewCA(t, "new CA")
	newCA.IssueInto(t, serverFiles, "kcl-compiler", "kcl-compiler")
	newCA.IssueInto(t, clientFiles, "applier")
	if cErr, sErr := handshake(t, server, client, "kcl-compiler"); cErr != nil || sErr != nil {
		t.Fatalf("after rotation: client %v, server %v", cErr, sErr)
	}
	if _, sErr := handshake(t, server, staleClient, "kcl-compiler"); sErr == nil {
		t.Fatal("a certificate of the old CA still works after rotation")
	}
}

func TestBrokenFilesFailAtStart(t *testing.T) {
	if _, err := NewReloader(Files{CertFile: "/nonexistent/tls.crt", KeyFile: "/nonexistent/tls.key"}); err == nil {
		t.Fatal("missing files accepted")
	}
	if _, err := NewReloader(Files{CertFile: "tls.crt"}); err == nil {
		t.Fatal("a certificate without a key accepted")
	}
}
