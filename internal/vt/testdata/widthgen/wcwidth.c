/*
 * wcwidth.c dumps the C library's wcwidth() for every Unicode scalar value
 * as run-length ranges "LO HI WIDTH" (hex, hex, decimal), one per line.
 * gosh uses the dump to build internal/vt/width_table.go; see width.go.
 *
 *   gcc -O2 -o /tmp/wcwidth wcwidth.c && /tmp/wcwidth > ../wcwidth-glibc.txt
 */
#define _XOPEN_SOURCE 700
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <wchar.h>
#include <gnu/libc-version.h>

int main(void) {
	if (setlocale(LC_ALL, "C.UTF-8") == NULL) {
		fprintf(stderr, "wcwidth: locale C.UTF-8 missing\n");
		return 1;
	}
	printf("# wcwidth() of glibc %s, locale C.UTF-8, U+0000..U+10FFFF (surrogates as -1)\n",
	       gnu_get_libc_version());
	long start = 0;
	int cur = wcwidth(0);
	for (long cp = 1; cp <= 0x110000; cp++) {
		int w = -2;
		if (cp <= 0x10FFFF)
			w = (cp >= 0xD800 && cp <= 0xDFFF) ? -1 : wcwidth((wchar_t)cp);
		if (w != cur) {
			printf("%04lX %04lX %d\n", start, cp - 1, cur);
			start = cp;
			cur = w;
		}
	}
	return 0;
}
