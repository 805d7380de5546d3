// The run report of a run that broke (docs/report.md, "After a failure"): no collective can
// complete once a process died, so each survivor that sees a failure adds it, alone, to the
// report file: `"complete": false` and the list of failures (which process saw what, which
// process died, which iterations are lost).
#pragma once

#include <string>

#include "core/RunFailure.hpp"

namespace ecluse {

/** The surviving process that saw a failure, and its run. */
struct FailureWitness {
  std::string simulation, config, approach, job;
  int world_rank = -1;
  std::string role;
};

/** Most failures listed in one report; later ones are only counted ("failures_not_listed"). */
inline constexpr int kMostListedFailures = 64;

/** Adds `failure` to the partial report at `path` (created, or merged with the entries other
 * survivors of the same job wrote: under a lock on its directory, written whole then renamed).
 * A file of another run or a complete report is replaced. Returns false if it could not be
 * written. */
bool add_to_partial_report(const std::string& path, const FailureWitness& witness,
                           const RunFailure& failure);

/** Under `ecluse run` (ECLUSE_RUN_REPORTS), a failed initialize: a program that goes on without
 * Ecluse (its return code not checked) writes nothing and would end with status 0, and a run
 * that never initialized writes no report. The launcher gets a partial report naming `message`
 * in its temporary directory instead, so that it exits 1. Nothing otherwise. */
void note_failed_initialize_for_launcher(const std::string& message, int world_rank);

/** The causes in the note of a process that ended without finalize (no run report), as
 * `ecluse run` reads them: with what it knew was lost (ecluse run exits 1), or without. */
inline constexpr const char* kUnfinalizedWithLosses =
    "finalize was not called, so the run wrote no report; this process knew of ";
inline constexpr const char* kUnfinalizedClean =
    "finalize was not called, so the run wrote no report; no loss was known to this process";

/** Under `ecluse run`, a process released at MPI_Finalize without finalize: it tells the
 * launcher what it knew was lost (`losses`, "" for nothing: then said by world rank 0 only, as
 * a note), since no report will. Nothing otherwise. */
void note_unfinalized_for_launcher(const std::string& losses, int world_rank);

/** The cause of a failed initialize that a later initialize of the same process superseded. */
inline constexpr const char* kSupersededInitialize =
    "initialize failed, then a later initialize of this process succeeded: ";

/** Under `ecluse run`, a successful initialize: the failures this process noted since its last
 * successful initialize (a program that retried, with another configuration or once another
 * run's output lock was released) no longer make the launcher exit 1. Their note is removed and
 * they are listed again as superseded, which the launcher reports without failing. */
void withdraw_failed_initialize_for_launcher();

}  // namespace ecluse
