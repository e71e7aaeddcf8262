// pause holds a pod sandbox's namespaces open until it is told to stop: the
// sandbox image the test node's containerd runs for every pod (the image
// Kubernetes publishes for this is on a registry these machines cannot reach).
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	<-stop
}
