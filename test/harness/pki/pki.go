// Package pki issues throwaway certificates for tests: a CA and certificates signed by
// it, written as PEM files the way a mounted kubernetes.io/tls Secret holds them
// (tls.crt, tls.key, ca.crt).
//
// API:
//
//	ca := pki.NewCA(t, "test CA")
//	files := ca.Issue(t, "kcl-compiler", "localhost", "127.0.0.1") // server and client usage
//	files.Cert, files.Key, files.CA // paths
package pki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// CA signs certificates.
type CA struct {
	cert    *x509.Certificate
	key     *ecdsa.PrivateKey
	certPEM []byte
	dir     string
}

// Files are the PEM files of one issued certificate.
type Files struct {
	Dir, Cert, Key, CA string
}

// NewCA makes a self-signed CA valid for a day.
func NewCA(tb testing.TB, name string) *CA {
	tb.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatalf("generating CA key: %v", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial(tb),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		tb.Fatalf("creating CA certificate: %v", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		tb.Fatalf("parsing CA certificate: %v", err)
	}
	return &CA{cert: cert, key: key, certPEM: pemBlock("CERTIFICATE", der), dir: tb.TempDir()}
}

// CertPEM is the CA certificate.
func (ca *CA) CertPEM() []byte { return ca.certPEM }

// Issue signs a certificate for names (DNS names or IP addresses) usable by servers
// and clients, and writes tls.crt, tls.key and ca.crt into a new folder.
func (ca *CA) Issue(tb testing.TB, commonName string, names ...string) Files {
	tb.Helper()
	dir, err := os.MkdirTemp(ca.dir, commonName+"-")
	if err != nil {
		tb.Fatalf("creating certificate folder: %v", err)
	}
	files := Files{Dir: dir, Cert: filepath.Join(dir, "tls.crt"), Key: filepath.Join(dir, "tls.key"), CA: filepath.Join(dir, "ca.crt")}
	ca.IssueInto(tb, files, commonName, names...)
	return files
}

// IssueInto writes a new certificate over files (a rotation of a mounted Secret).
func (ca *CA) IssueInto(tb testing.TB, files Files, commonName string, names ...string) {
	tb.Helper()
	certPEM, keyPEM := ca.sign(tb, commonName, names)
	for path, data := range map[string][]byte{files.Cert: certPEM, files.Key: keyPEM, files.CA: ca.certPEM} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			tb.Fatalf("writing %s: %v", path, err)
		}
	}
}

func (ca *CA) sign(tb testing.TB, commonName string, names []string) (certPEM, keyPEM []byte) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatalf("generating key: %v", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(tb),
		Subject:      pkix.Name{CommonName: commonName},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	for _, n := range names {
		if ip := net.ParseIP(n); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, n)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		tb.Fatalf("signing certificate: %v", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		tb.Fatalf("encoding key: %v", err)
	}
	return pemBlock("CERTIFICATE", der), pemBlock("EC PRIVATE KEY", keyDER)
}

func serial(tb testing.TB) *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		tb.Fatalf("serial number: %v", err)
	}
	return n
}

func pemBlock(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}
