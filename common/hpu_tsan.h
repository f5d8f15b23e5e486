/* SPDX-License-Identifier: MIT */
/*
 * hpu_tsan.h - what ThreadSanitizer builds (make tsan, docs/building.md
 * "ThreadSanitizer") need to be told, and nothing in other builds.
 *
 * HPU_TSAN is 1 in a build with -fsanitize=thread (gcc or clang), else 0.
 *
 * HPU_TSAN_IGNORE_BEGIN() / HPU_TSAN_IGNORE_END(): the memory accesses
 * the calling thread makes in between (its own and those the sanitizer's
 * interceptors report for a system call, as the buffers of
 * process_vm_readv) are not checked. Only for memory whose ordering is
 * not the host program's to give: the simulated device's memory, which
 * engines reach in the order the client programmed (or, for an access
 * abandoned to its call, whenever the kernel ends the call). Every use
 * says why.
 */
#ifndef HPU_TSAN_H
#define HPU_TSAN_H

#if defined(__SANITIZE_THREAD__)
#define HPU_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define HPU_TSAN 1
#endif
#endif
#ifndef HPU_TSAN
#define HPU_TSAN 0
#endif

#if HPU_TSAN
/* the runtime's dynamic annotations (no header declares them) */
void AnnotateIgnoreReadsBegin(const char *file, int line);
void AnnotateIgnoreReadsEnd(const char *file, int line);
void AnnotateIgnoreWritesBegin(const char *file, int line);
void AnnotateIgnoreWritesEnd(const char *file, int line);

#define HPU_TSAN_IGNORE_BEGIN()                                \
	do {                                                   \
		AnnotateIgnoreReadsBegin(__FILE__, __LINE__);  \
		AnnotateIgnoreWritesBegin(__FILE__, __LINE__); \
	} while (0)
#define HPU_TSAN_IGNORE_END()                                \
	do {                                                 \
		AnnotateIgnoreWritesEnd(__FILE__, __LINE__); \
		AnnotateIgnoreReadsEnd(__FILE__, __LINE__);  \
	} while (0)
#else
#define HPU_TSAN_IGNORE_BEGIN() \
	do {                    \
	} while (0)
#define HPU_TSAN_IGNORE_END() \
	do {                  \
	} while (0)
#endif

#endif /* HPU_TSAN_H */
