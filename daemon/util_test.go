package daemon

import "net"

func netDialUnixgram(path string) (*net.UnixConn, error) {
	return net.DialUnix("unixgram", nil, &net.UnixAddr{Name: path, Net: "unixgram"})
}
