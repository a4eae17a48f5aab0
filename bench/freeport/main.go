// Command freeport prints a TCP port on 127.0.0.1 that was free a moment ago
// (the OS picks it; the listener is closed before exit).
package main

import (
	"fmt"
	"net"
	"os"
)

func main() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "freeport:", err)
		os.Exit(1)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	fmt.Println(port)
}
