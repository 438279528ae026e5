// Command probe is the smallest program the image tests put in an image: it reports
// who it runs as, so the image's user can be checked by running it.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Printf("uid=%d gid=%d\n", os.Getuid(), os.Getgid())
}
