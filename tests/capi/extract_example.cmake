# Writes the first ```c block of a Markdown file to a source file, so that the example in the
# docs is the program the tests compile and run.
#   cmake -DDOC=docs/c-api.md -DOUT=example.c -P extract_example.cmake
file(READ ${DOC} text)
string(FIND "${text}" "\n```c\n" start)
if(start EQUAL -1)
  message(FATAL_ERROR "${DOC} has no ```c block")
endif()
math(EXPR start "${start} + 6")
string(SUBSTRING "${text}" ${start} -1 rest)
string(FIND "${rest}" "\n```" end)
if(end EQUAL -1)
  message(FATAL_ERROR "${DOC}: the ```c block is not closed")
endif()
math(EXPR end "${end} + 1")
string(SUBSTRING "${rest}" 0 ${end} code)
file(WRITE ${OUT} "${code}")
