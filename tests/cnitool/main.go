// SPDX-License-Identifier: Apache-2.0
// cnitool drives a CNI network list through libcni exactly as a runtime (Multus) does.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/containernetworking/cni/libcni"
)

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "cnitool: "+format+"\n", args...)
	os.Exit(1)
}

// parseArgs turns "K=V;K=V" into libcni's CNI_ARGS pairs.
func parseArgs(s string) [][2]string {
	var out [][2]string
	for _, kv := range strings.Split(s, ";") {
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			fail("invalid -args entry %q: want K=V", kv)
		}
		out = append(out, [2]string{k, v})
	}
	return out
}

func main() {
	conflist := flag.String("conflist", "", "network list file (.conflist)")
	path := flag.String("path", os.Getenv("CNI_PATH"), "plugin directories, colon separated")
	cache := flag.String("cache", "", "libcni cache directory")
	netns := flag.String("netns", "", "pod netns path")
	ifname := flag.String("ifname", "net1", "interface name in the pod")
	id := flag.String("id", "", "container ID")
	args := flag.String("args", "", "CNI_ARGS, K=V;K=V")
	capArgs := flag.String("cap", "", "capability args as a JSON object, e.g. {\"deviceID\": \"...\"}")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: %s [flags] add|check|del\n", filepath.Base(os.Args[0]))
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 || *conflist == "" || *cache == "" {
		flag.Usage()
		os.Exit(2)
	}

	list, err := libcni.ConfListFromFile(*conflist)
	if err != nil {
		fail("%v", err)
	}
	rt := &libcni.RuntimeConf{
		ContainerID: *id,
		NetNS:       *netns,
		IfName:      *ifname,
		Args:        parseArgs(*args),
	}
	if *capArgs != "" {
		if err := json.Unmarshal([]byte(*capArgs), &rt.CapabilityArgs); err != nil {
			fail("invalid -cap %q: %v", *capArgs, err)
		}
	}
	cni := libcni.NewCNIConfigWithCacheDir(filepath.SplitList(*path), *cache, nil)
	ctx := context.Background()

	switch flag.Arg(0) {
	case "add":
		res, err := cni.AddNetworkList(ctx, list, rt)
		if err != nil {
			fail("add: %v", err)
		}
		if err := res.Print(); err != nil {
			fail("print: %v", err)
		}
	case "check":
		if err := cni.CheckNetworkList(ctx, list, rt); err != nil {
			fail("check: %v", err)
		}
	case "del":
		if err := cni.DelNetworkList(ctx, list, rt); err != nil {
			fail("del: %v", err)
		}
	default:
		flag.Usage()
		os.Exit(2)
	}
}
