/* revision: the source revision, regenerated at every build (sim/01-base/git_revision.c.in). */
#ifndef ATTNRANK_GIT_REVISION_H
#define ATTNRANK_GIT_REVISION_H
extern const char ar_git_revision[];
#endif
