// SPDX-License-Identifier: GPL-2.0
/* kmsg N SIZE: N messages of SIZE bytes (at most 4000) sent to and taken
 * from a private System V message queue, one at a time.  Each msgsnd(2)
 * has the kernel kmalloc() the message: its header and its SIZE bytes in
 * one block (ipc/msgutil.c alloc_msg). */
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>

struct kmsg {
	long type;
	char text[4000];
};

int main(int argc, char **argv)
{
	static struct kmsg m = { .type = 1 };
	long n, size;
	int q;

	if (argc != 3)
		return 2;
	n = atol(argv[1]);
	size = atol(argv[2]);
	if (size < 1 || size > (long)sizeof(m.text))
		return 2;
	q = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	if (q < 0)
		return 1;
	memset(m.text, 'k', sizeof(m.text));
	for (long i = 0; i < n; i++)
		if (msgsnd(q, &m, size, 0) || msgrcv(q, &m, sizeof(m.text), 0, 0) != size)
			return 1;
	return msgctl(q, IPC_RMID, NULL) ? 1 : 0;
}
