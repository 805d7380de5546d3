// Pieces shared by the transports: the peer timeout, the block copy, and the messages of a block
// that does not fit, is skipped or is committed without an alloc.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <utility>

#include "block/BlockData.hpp"
#include "block/StridedSource.hpp"
#include "config/Config.hpp"
#include "core/Log.hpp"

namespace ecluse {

/** A check on a client's hot path (end_iteration) made at most once a second: a clock read
 * otherwise. Both transports check their server so (a client that never waits for room or
 * credit would compute on for hours after its server died, every call OK). */
class OncePerSecond {
 public:
  [[nodiscard]] bool due(std::chrono::steady_clock::time_point now) {
    if (now < next_) return false;
    next_ = now + std::chrono::seconds(1);
    return true;
  }

 private:
  std::chrono::steady_clock::time_point next_{};
};

/** The iterations a client handed over (wrote a block of, or ended) since its first: what it
 * names when its server is gone, from the first its server had not stored. */
class HandedOver {
 public:
  void note(int iteration) {
    if (first_ < 0) first_ = iteration;
    if (iteration > last_) last_ = iteration;
  }
  /** The handed-over iterations from `first_unstored` on: {first, last}, or {-1, -1}. */
  [[nodiscard]] std::pair<int, int> not_stored(int first_unstored) const;

 private:
  int first_ = -1;
  int last_ = -1;
};

/** A client's server is gone: fail_on_lost_peer with the cause `gone` ("the Ecluse server of
 * this node (process P) is gone while ...") + what this client lost, from `handed` and the
 * server's first unstored iteration as the server last said it ("; iterations 5 to 7 of this
 * client are not stored", or "; it had stored every iteration of this client") + `then`. */
[[noreturn]] void fail_on_lost_server(const std::string& gone, const std::string& then,
                                      const char* role, int rank, long long pid,
                                      const HandedOver& handed, int first_unstored);

/** Seconds elapsed since `start` (the time a client waited for room or credit). */
double seconds_since(std::chrono::steady_clock::time_point start);
/** Seconds a client or server waits for its peer before failing (ECLUSE_TIMEOUT, default 600,
 * at most 30 days). */
std::chrono::seconds peer_timeout();
/** True when ECLUSE_TIMEOUT is set: only then do servers abort on clients silent that long
 * (by default a client may compute for hours between two writes). */
bool silence_is_bounded();

/** A server (`server`: "dedicated core", "dedicated node") whose `clients` sent nothing for
 * peer_timeout(): aborts the job, naming the likely cause (a collective of the simulation on a
 * communicator that holds the servers, such as MPI_COMM_WORLD) and the fix. */
[[noreturn]] void abort_silent_clients(const std::string& server, std::size_t clients);

/** memcpy in 64 MiB pieces: glibc's memcpy slows down ~3x on copies of hundreds of MiB whose
 * source and destination sit at different page offsets; 64 MiB pieces do not. With
 * `streaming` (x86-64), non-temporal stores instead: the destination is written to memory
 * without being read first or kept in the caller's caches, and is visible to other processes
 * when the call returns (sfence). */
void copy_block(void* to, const void* from, std::size_t bytes, bool streaming = false);
/** The one copy of a put: `strided` packed when given (by copy_block, through a 64 KiB
 * buffer where its elements are not contiguous), else copy_block of `block.data`. */
void copy_source(void* to, const BlockData& block, const StridedSource* strided, std::size_t bytes,
                 bool streaming);
/** The smallest block that `<buffer copy>` copies with streaming stores: 1 MiB for auto (from
 * there they beat a cached copy into lines a server has read or a compute phase evicted; they
 * lose only when the lines are still in the client's own cache), 0 for streaming, SIZE_MAX
 * for cached. */
std::size_t streaming_copy_from(const Config& config);

/** A client would hold `need` bytes (`held` of them already, for this iteration) where it may
 * hold `share`; `memory` names the setting to raise. `whole`: what a whole iteration of this
 * client takes with the parameters' current values (0: unknown), so that the size to raise to is
 * enough for the rest of the iteration too. */
[[noreturn]] void throw_too_big(const BlockData& block, std::size_t need, std::size_t share,
                                std::size_t held, std::size_t whole, const std::string& memory,
                                const Architecture& a, int dc_clients = 0);

/** Throws ECLUSE_ALLOCATION_ERROR at initialize: a block of `variable` takes `need` bytes of
 * `memory` where a client may hold `share`, so no write of it could ever be handed over. */
/** Warns when one iteration of a client (`blocks` blocks, `need` bytes) exceeds its `share`. */
void warn_iteration_too_big(Log& log, std::size_t blocks, std::size_t need, std::size_t share,
                            const std::string& memory, const Architecture& a, int dc_clients = 0);
[[noreturn]] void throw_never_fits(const Variable& variable, std::size_t need, std::size_t share,
                                   const std::string& memory, const Architecture& a,
                                   int dc_clients = 0);
/** The warning for a block of a Damaris layout naming parameters (evaluated_at_write) that does
 * not fit with the values they have at initialize: damaris_parameter_set may still make it
 * smaller before the first write, so it is not refused; its writes are while it does not fit. */
std::string may_never_fit_message(const std::string& variable, std::size_t need, std::size_t share,
                                  const std::string& memory, const Architecture& a,
                                  int dc_clients = 0);
/** Initialize's check of one block of `variable` (`need` bytes of `memory`, a client may hold
 * `share`): throw_never_fits, or, for a Damaris layout naming parameters, the warning above
 * when `warn` (the first client only: the same line from every client of a large job is
 * noise). */
void check_block_fits(const Config& config, Log& log, const Variable& variable, std::size_t need,
                      std::size_t share, const std::string& memory, bool warn, int dc_clients = 0);
/** throw_never_fits's message, for ecluse-check to say what initialize will. */
std::string never_fits_message(const std::string& variable, std::size_t need, std::size_t share,
                               const std::string& memory, const Architecture& a,
                               int dc_clients = 0);
/** How to give a client that needs `need` bytes where it may hold `share`: "raise <buffer
 * size> (now N, at FILE:LINE) to at least M", whole MiB above 1 MiB. With `dc_clients` (a
 * node buffer shared by that many clients) M is exact (shm::buffer_size_for, what ecluse-check
 * says too); else the buffer scaled by need / share. */
std::string raise_buffer(const Architecture& a, std::size_t need, std::size_t share,
                         int dc_clients = 0);

/** What a client is told when its server could not store: `first` is the first failure
 * ("iteration I in store 'S': cause"), `failures` the iterations not stored so far. */
std::string store_failure_message(const std::string& server, const std::string& first,
                                  std::uint32_t failures);

/** Throws ECLUSE_BLOCK_NOT_FOUND: a commit of a block that no alloc handed out. */
[[noreturn]] void throw_not_allocated(const Variable& variable, int block);

/** Logs a write dropped by the "skip" policy; `skipped` counts them so far. */
void log_skipped(Log& log, const BlockData& block, std::uint64_t skipped, const std::string& why);

}  // namespace ecluse
