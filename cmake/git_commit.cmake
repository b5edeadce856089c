# cmake -DSOURCE_DIR=<repo> -DOUTPUT=<header> -P git_commit.cmake: writes the checkout's commit
# (and "-dirty" when tracked files changed) as BKCTL_GIT_COMMIT, touching OUTPUT only when that
# changes, so a build after a commit recompiles one file. Outside a git checkout: "unknown".
execute_process(COMMAND git -C ${SOURCE_DIR} rev-parse --short=12 HEAD OUTPUT_VARIABLE commit
                RESULT_VARIABLE failed OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(failed OR commit STREQUAL "")
  set(commit unknown)
else()
  execute_process(COMMAND git -C ${SOURCE_DIR} status --porcelain --untracked-files=no
                  OUTPUT_VARIABLE changes ERROR_QUIET)
  if(NOT changes STREQUAL "")
    string(APPEND commit -dirty)
  endif()
endif()
file(WRITE ${OUTPUT}.tmp "#define BKCTL_GIT_COMMIT \"${commit}\"\n")
file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUTPUT}.tmp)
