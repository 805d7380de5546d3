/* The answers of the calls Ecluse added for Damaris (commit and clear of a given iteration, the
 * restarted phase), with their messages, one "case|status|message" line each; 1 rank, the
 * synchronous mesh.xml. test_damaris.py compares them. Usage: damaris_messages <mesh.xml> */
#include <ecluse/ecluse.h>
#include <stdio.h>

#include "Damaris.h"

static void show(const char* name, int status) {
  printf("%s|%s|%s\n", name, ecluse_status_name(status), ecluse_error_message());
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  show("initialize", damaris_initialize(argc > 1 ? argv[1] : "mesh.xml", MPI_COMM_WORLD));
  int is_client = 0, has_servers = -1;
  show("start", damaris_start(&is_client));
  show("has_servers", ecluse_has_servers(&has_servers));
  printf("has_servers=%d\n", has_servers);
  void* room = NULL;
  show("alloc", damaris_alloc("pressure", &room));
  show("commit-later", damaris_commit_iteration("pressure", 1));
  show("clear-later", damaris_clear_block_iteration("pressure", 1, 3));
  show("clear-unknown", damaris_clear_iteration("pressur", 0));
  /* Its action runs here (synchronous) and was neither bound nor exported: said, yet OK. */
  show("signal-unbound", damaris_signal("tick"));
  show("commit-now", damaris_commit_iteration("pressure", 0));
  show("clear-after-commit", damaris_clear("pressure"));
  show("write-after-commit", damaris_write("pressure", room));
  show("end", damaris_end_iteration());
  show("clear-ended", damaris_clear_iteration("pressure", 0));
  show("commit-ended", damaris_commit_iteration("pressure", 0));
  show("stop", damaris_stop());
  show("write-after-stop", damaris_write("pressure", room));
  show("restart", damaris_start(&is_client));
  int iteration = -1;
  show("iteration", damaris_get_iteration(&iteration));
  printf("iteration=%d\n", iteration);
  show("alloc-restarted", damaris_alloc("pressure", &room));
  show("commit-restarted", damaris_commit_iteration("pressure", 1));
  show("end-restarted", damaris_end_iteration());
  /* The same error again is said once, with how many times it came (at the next error). */
  for (int k = 0; k < 5; ++k) show("clear-unknown-again", damaris_clear("pressur"));
  /* Past the 10th error said by a rank, libdamaris says once that it prints no more. */
  const char* other[] = {"pressurA", "pressurB", "pressurC", "pressurD"};
  for (int k = 0; k < 4; ++k) show("clear-other", damaris_clear(other[k]));
  show("stop-restarted", damaris_stop());
  show("finalize", damaris_finalize());
  MPI_Finalize();
  return 0;
}
