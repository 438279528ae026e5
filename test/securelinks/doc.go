// Package securelinks holds the test of the split deployment over secured links: the
// watcher and the applier authenticate to a NATS server started from the rendered
// authorization (internal/natsconn) over TLS, and the applier calls the compiler and
// the resolver over mutual TLS (internal/tlsfiles), on a real apiserver.
package securelinks
