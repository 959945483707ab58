# `#define` lines of the target's <asm/unistd.h> (cpp -dM) to designated
# initializers [NR] = "name", of the system calls of that architecture.
$1 == "#define" { val[$2] = $3 }
END {
	for (m in val) {
		if (m !~ /^__NR_/ || m == "__NR_syscalls" || m == "__NR_arch_specific_syscall")
			continue
		v = val[m]
		while (v in val)	# __NR_fcntl -> __NR3264_fcntl -> 25
			v = val[v]
		if (v ~ /^[0-9]+$/)
			printf "[%d] = \"%s\",\n", v, substr(m, 6)
	}
}
