/* damaris_get_type for the element types of Damaris and Ecluse, the unsigned ones included:
 * client 0 prints "variable|status|number|name" for each variable named on the command line.
 * Usage: damaris_types <file.xml> <variable>... */
#include <stdio.h>

#include "Damaris.h"

static const char* type_name(DAMARIS_TYPE_STR type) {
  static const char* const names[] = {
      "DAMARIS_TYPE_UNDEFINED", "DAMARIS_TYPE_CHAR",  "DAMARIS_TYPE_UCHAR",  "DAMARIS_TYPE_SHORT",
      "DAMARIS_TYPE_USHORT",    "DAMARIS_TYPE_INT",   "DAMARIS_TYPE_UINT",   "DAMARIS_TYPE_LONG",
      "DAMARIS_TYPE_ULONG",     "DAMARIS_TYPE_FLOAT", "DAMARIS_TYPE_DOUBLE", "DAMARIS_TYPE_STRING",
      "DAMARIS_TYPE_LABEL"};
  const int n = (int)(sizeof names / sizeof names[0]);
  return (int)type >= 0 && (int)type < n ? names[type] : "out of range";
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int failed = damaris_initialize(argc > 1 ? argv[1] : "types.xml", MPI_COMM_WORLD);
  for (int i = 2; failed == DAMARIS_OK && i < argc; ++i) {
    DAMARIS_TYPE_STR type = DAMARIS_TYPE_LABEL; /* overwritten, also on an error */
    const int err = damaris_get_type(argv[i], &type);
    if (rank == 0) {
      printf("%s|%s|%d|%s\n", argv[i], err == DAMARIS_OK ? "ok" : damaris_error_string(err),
             (int)type, type_name(type));
    }
  }
  if (failed == DAMARIS_OK) damaris_finalize();
  MPI_Finalize();
  return failed != DAMARIS_OK;
}
