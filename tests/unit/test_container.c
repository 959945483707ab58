// SPDX-License-Identifier: GPL-2.0
/* Cgroup v2 paths as container runtimes, the kubelet and systemd make
 * them, into container id, pod UID and unit; pod names from the kubelet's
 * log directories. */
#include "check.h"
#include "kernel/container.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ID "4f1c2e3d5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d"
#define ID2 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define UID "7f6c1c2e-3b4a-4c5d-9e8f-0a1b2c3d4e5f"
#define UID_ "7f6c1c2e_3b4a_4c5d_9e8f_0a1b2c3d4e5f"

static const struct {
	const char *what, *path, *container, *pod_uid, *unit;
} paths[] = {
	{ "docker, systemd driver", "/system.slice/docker-" ID ".scope", ID, "",
	  "docker-" ID ".scope" },
	{ "docker, cgroupfs driver", "/docker/" ID, ID, "", "" },
	{ "containerd CRI, burstable pod", "/kubepods.slice/kubepods-burstable.slice/"
	  "kubepods-burstable-pod" UID_ ".slice/cri-containerd-" ID ".scope", ID, UID,
	  "cri-containerd-" ID ".scope" },
	{ "containerd CRI, guaranteed pod", "/kubepods.slice/kubepods-pod" UID_ ".slice/"
	  "cri-containerd-" ID ".scope", ID, UID, "cri-containerd-" ID ".scope" },
	{ "CRI-O, besteffort pod", "/kubepods.slice/kubepods-besteffort.slice/"
	  "kubepods-besteffort-pod" UID_ ".slice/crio-" ID ".scope", ID, UID, "crio-" ID ".scope" },
	{ "CRI-O's conmon is no container", "/kubepods.slice/kubepods-besteffort.slice/"
	  "kubepods-besteffort-pod" UID_ ".slice/crio-conmon-" ID ".scope", "", UID,
	  "crio-conmon-" ID ".scope" },
	{ "pod slice without a container", "/kubepods.slice/kubepods-burstable.slice/"
	  "kubepods-burstable-pod" UID_ ".slice", "", UID, "kubepods-burstable-pod" UID_ ".slice" },
	{ "kubelet cgroupfs driver, burstable", "/kubepods/burstable/pod" UID "/" ID, ID, UID, "" },
	{ "kubelet cgroupfs driver, guaranteed", "/kubepods/pod" UID "/" ID, ID, UID, "" },
	{ "kind node (kubelet-kubepods)", "/system.slice/docker-" ID2 ".scope/kubelet.slice/"
	  "kubelet-kubepods.slice/kubelet-kubepods-besteffort.slice/"
	  "kubelet-kubepods-besteffort-pod" UID_ ".slice/cri-containerd-" ID ".scope", ID, UID,
	  "cri-containerd-" ID ".scope" },
	{ "podman rootful, systemd", "/machine.slice/libpod-" ID ".scope", ID, "",
	  "libpod-" ID ".scope" },
	{ "podman's conmon", "/machine.slice/libpod-conmon-" ID ".scope", "", "",
	  "libpod-conmon-" ID ".scope" },
	{ "podman rootless", "/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID
	  ".scope", ID, "", "libpod-" ID ".scope" },
	{ "podman, cgroupfs manager", "/libpod_parent/libpod-" ID, ID, "", "" },
	{ "a container's own cgroup below its scope", "/system.slice/docker-" ID ".scope/init.scope",
	  ID, "", "init.scope" },
	{ "system service", "/system.slice/ssh.service", "", "", "ssh.service" },
	{ "user session", "/user.slice/user-1000.slice/session-3.scope", "", "", "session-3.scope" },
	{ "user service", "/user.slice/user-1000.slice/user@1000.service/app.slice/dbus.service",
	  "", "", "dbus.service" },
	{ "root", "/", "", "", "" },
	{ "63 hex digits", "/docker/" "123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
	  "", "", "" },
	{ "upper-case hex", "/docker/4F1C2E3D5A6B7C8D9E0F1A2B3C4D5E6F7A8B9C0D1E2F3A4B5C6D7E8F9A0B1C2D",
	  "", "", "" },
	{ "an id with a suffix that is no scope", "/system.slice/docker-" ID ".mount", "", "",
	  "docker-" ID ".mount" },
	{ "a pod UID of the wrong shape", "/kubepods/burstable/pod7f6c1c2e3b4a4c5d9e8f0a1b2c3d4e5f00",
	  "", "", "" },
};

static void test_paths(void)
{
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		struct cg_ident id;
		char name[128];

		cg_path_parse(paths[i].path, &id);
		snprintf(name, sizeof(name), "parse: %s", paths[i].what);
		check(name, !strcmp(id.container, paths[i].container) &&
			    !strcmp(id.pod_uid, paths[i].pod_uid) && !strcmp(id.unit, paths[i].unit),
		      "container '%s' pod '%s' unit '%s'", id.container, id.pod_uid, id.unit);
	}
}

static void test_fields(void)
{
	int ok = 1;

	for (int f = 0; f < NR_CG_FIELDS; f++)
		ok &= cg_field_of(cg_field_name(f)) == f;
	check("field names", ok && cg_field_of("cgroup") == -1 && !cg_field_name(NR_CG_FIELDS),
	      NULL);
}

static void test_pods(void)
{
	char dir[] = "/tmp/kdist-pods.XXXXXX", path[256], ns[64], name[64];
	const char *entries[] = { "kube-system_coredns-5d78c9869d-abcde_" UID,
				  "default_web-0_11111111-2222-3333-4444-555555555555",
				  "broken_" UID "x", "_nameless_22222222-2222-3333-4444-555555555555" };
	int err;

	if (!mkdtemp(dir)) {
		skip("pods", "no temporary directory");
		return;
	}
	for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, entries[i]);
		mkdir(path, 0700);
	}
	err = cg_pod_lookup(dir, UID, ns, sizeof(ns), name, sizeof(name));
	check("pods: namespace and name from NS_NAME_UID",
	      !err && !strcmp(ns, "kube-system") && !strcmp(name, "coredns-5d78c9869d-abcde"),
	      "err %d ns '%s' name '%s'", err, ns, name);
	err = cg_pod_lookup(dir, "22222222-2222-3333-4444-555555555555", ns, sizeof(ns), name,
			    sizeof(name));
	check("pods: an entry without a namespace is not a pod", err == -ENOENT, "err %d", err);
	err = cg_pod_lookup(dir, "33333333-2222-3333-4444-555555555555", ns, sizeof(ns), name,
			    sizeof(name));
	check("pods: an unknown UID", err == -ENOENT, "err %d", err);
	check("pods: no directory", cg_pod_lookup("/nonexistent/pods", UID, ns, sizeof(ns), name,
						  sizeof(name)) == -ENOENT, NULL);
	for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, entries[i]);
		rmdir(path);
	}
	rmdir(dir);
}

int main(void)
{
	test_paths();
	test_fields();
	test_pods();
	return check_done();
}
