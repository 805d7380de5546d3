// Shared helpers of the transports.
#include "transport/TransportSupport.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif
#include <cstdlib>
#include <cstring>

#include "config/Parameters.hpp"
#include "core/ByteText.hpp"
#include "core/Collective.hpp"
#include "core/DataType.hpp"
#include "core/RunFailure.hpp"
#include "ecluse/Error.hpp"
#include "shm/BufferAllocator.hpp"

namespace ecluse {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::chrono::seconds peer_timeout() {
  return wait_timeout();
}

std::pair<int, int> HandedOver::not_stored(int first_unstored) const {
  const int first = std::max(first_, first_unstored);
  if (first_ < 0 || first > last_) return {-1, -1};
  return {first, last_};
}

void fail_on_lost_server(const std::string& gone, const std::string& then, const char* role,
                         int rank, long long pid, const HandedOver& handed, int first_unstored) {
  const auto [first, last] = handed.not_stored(first_unstored);
  std::string lost;
  if (first < 0) {
    lost = "; it had stored every iteration of this client";
  } else if (first == last) {
    lost = "; iteration " + std::to_string(first) + " of this client is not stored";
  } else {
    lost = "; iterations " + std::to_string(first) + " to " + std::to_string(last) +
           " of this client are not stored";
  }
  fail_on_lost_peer({gone + lost + then, role, rank, pid, first, last});
}

bool silence_is_bounded() {
  static const bool bounded = timeout_is_set();
  return bounded;
}

void abort_silent_clients(const std::string& server, std::size_t clients) {
  const std::string seconds = std::to_string(peer_timeout().count());
  abort_on_timeout(
      "in the " + server + " for its " + std::to_string(clients) +
      " client(s), which sent nothing for " + seconds +
      " s: a simulation that calls a collective on MPI_COMM_WORLD (or on any communicator that "
      "holds the Ecluse servers) instead of the communicator from ecluse_client_comm_get "
      "blocks there forever, since servers never join it: use that communicator. If the "
      "clients only compute longer than " +
      seconds + " s between two Ecluse calls, raise ECLUSE_TIMEOUT.");
}

namespace {

void copy_cached(char* out, const char* in, std::size_t bytes) {
  constexpr std::size_t kPiece = std::size_t{64} << 20;
  for (std::size_t done = 0; done < bytes; done += kPiece) {
    std::memcpy(out + done, in + done, std::min(kPiece, bytes - done));
  }
}

#if defined(__x86_64__)
// Non-temporal stores: the destination lines are written to memory without being read first
// (no read for ownership) and without evicting the caller's working set.
void copy_streaming(char* out, const char* in, std::size_t bytes) {
  const std::size_t head = (16 - reinterpret_cast<std::uintptr_t>(out) % 16) % 16;
  std::memcpy(out, in, std::min(head, bytes));
  if (head >= bytes) return;
  out += head, in += head, bytes -= head;
  const std::size_t body = bytes / 64 * 64;
  for (std::size_t i = 0; i < body; i += 64) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i + 16));
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i + 32));
    const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i + 48));
    _mm_stream_si128(reinterpret_cast<__m128i*>(out + i), a);
    _mm_stream_si128(reinterpret_cast<__m128i*>(out + i + 16), b);
    _mm_stream_si128(reinterpret_cast<__m128i*>(out + i + 32), c);
    _mm_stream_si128(reinterpret_cast<__m128i*>(out + i + 48), d);
  }
  std::memcpy(out + body, in + body, bytes - body);
  _mm_sfence();  // the stores are visible before the block is announced
}
#endif

}  // namespace

std::size_t streaming_copy_from(const Config& config) {
  switch (config.architecture.buffer_copy) {
    case BufferCopy::Streaming:
      return 0;
    case BufferCopy::Cached:
      return SIZE_MAX;
    default:
      return std::size_t{1} << 20;
  }
}

void copy_block(void* to, const void* from, std::size_t bytes, bool streaming) {
  auto* out = static_cast<char*>(to);
  const auto* in = static_cast<const char*>(from);
#if defined(__x86_64__)
  if (streaming) return copy_streaming(out, in, bytes);
#else
  (void)streaming;  // no streaming stores written for this architecture: memcpy
#endif
  copy_cached(out, in, bytes);
}

void copy_source(void* to, const BlockData& block, const StridedSource* strided, std::size_t bytes,
                 bool streaming) {
  if (strided) return strided->pack(to, data_type_size(block.type), copy_block, streaming);
  copy_block(to, block.data, bytes, streaming);
}

std::string raise_buffer(const Architecture& a, std::size_t need, std::size_t share,
                         int dc_clients) {
  // A client's share grows with the buffer: the size that gives it `need`.
  const long double scaled =
      dc_clients > 0
          ? static_cast<long double>(shm::buffer_size_for(a.allocator, need, dc_clients))
          : static_cast<long double>(a.buffer_size) * need / std::max<std::size_t>(share, 1);
  const auto at_least = scaled >= 1.8e19L
                            ? UINT64_MAX
                            : suggested_size(static_cast<std::uint64_t>(std::ceil(scaled)));
  const std::string now = "now " + bytes_text(a.buffer_size);
  return a.buffer_where.line > 0
             ? "raise <buffer size> (" + now + ", at " + to_string(a.buffer_where) +
                   ") to at least " + bytes_text(at_least)
             : "add <buffer size=\"...\"/> to <architecture> with at least " +
                   bytes_text(at_least) + " (the default is " + bytes_text(a.buffer_size) + ")";
}

void throw_too_big(const BlockData& block, std::size_t need, std::size_t share, std::size_t held,
                   std::size_t whole, const std::string& memory, const Architecture& a,
                   int dc_clients) {
  const std::string what =
      "block " + std::to_string(block.block) + " of variable '" + block.variable->name + "'";
  // Raised to this block's or this iteration's need so far only, the next write of the
  // iteration would fail again: the whole iteration's, when larger.
  const std::size_t target = std::max(need, whole);
  const std::string rest = target > need ? " (the whole iteration of this client needs " +
                                               std::to_string(target) +
                                               " bytes with the parameters' values now)"
                                         : "";
  throw Error(ECLUSE_ALLOCATION_ERROR,
              held == 0 ? what + " needs " + std::to_string(need) + " bytes of " + memory +
                              " but a client may hold at most " + std::to_string(share) +
                              " bytes; " + raise_buffer(a, target, share, dc_clients) + rest + "."
                        : "iteration " + std::to_string(block.iteration) + " needs " +
                              std::to_string(need) + " bytes of " + memory + " with " + what +
                              " but a client may hold at most " + std::to_string(share) +
                              " bytes and the server frees an iteration only once it ends; " +
                              raise_buffer(a, target, share, dc_clients) + rest + ".");
}

std::string never_fits_message(const std::string& variable, std::size_t need, std::size_t share,
                               const std::string& memory, const Architecture& a, int dc_clients) {
  return "variable '" + variable + "' has blocks of " + std::to_string(need) + " bytes of " +
         memory + " but a client may hold at most " + std::to_string(share) +
         " bytes: no write of it could ever be handed over; " +
         raise_buffer(a, need, share, dc_clients) + ".";
}

std::string may_never_fit_message(const std::string& variable, std::size_t need, std::size_t share,
                                  const std::string& memory, const Architecture& a,
                                  int dc_clients) {
  return "variable '" + variable + "' has blocks of " + std::to_string(need) + " bytes of " +
         memory +
         " with the values its parameters have at initialize, but a client may hold at "
         "most " +
         std::to_string(share) +
         " bytes: its writes will be refused (ECLUSE_ALLOCATION_ERROR, counted in the run "
         "report) unless damaris_parameter_set makes its blocks smaller first (a layout of a "
         "Damaris file that names parameters is checked at each write, not refused at "
         "initialize); if these are its sizes, " +
         raise_buffer(a, need, share, dc_clients) + ".";
}

void check_block_fits(const Config& config, Log& log, const Variable& variable, std::size_t need,
                      std::size_t share, const std::string& memory, bool warn, int dc_clients) {
  if (need <= share) return;
  const Architecture& a = config.architecture;
  if (!evaluated_at_write(config, *config.find_layout(variable.layout))) {
    throw_never_fits(variable, need, share, memory, a, dc_clients);
  }
  if (warn) log.warning(may_never_fit_message(variable.name, need, share, memory, a, dc_clients));
}

void throw_never_fits(const Variable& variable, std::size_t need, std::size_t share,
                      const std::string& memory, const Architecture& a, int dc_clients) {
  throw Error(ECLUSE_ALLOCATION_ERROR,
              never_fits_message(variable.name, need, share, memory, a, dc_clients));
}

void warn_iteration_too_big(Log& log, std::size_t blocks, std::size_t need, std::size_t share,
                            const std::string& memory, const Architecture& a, int dc_clients) {
  if (need <= share) return;
  log.warning("an iteration that writes all " + std::to_string(blocks) +
              " blocks of this client (every variable, every domain) needs " +
              std::to_string(need) + " bytes of " + memory + " but a client may hold at most " +
              std::to_string(share) +
              " bytes, and the server frees an iteration only once it ends: the writes of such "
              "an iteration past that would be refused (ECLUSE_ALLOCATION_ERROR); " +
              raise_buffer(a, need, share, dc_clients) + ", or write fewer blocks per iteration.");
}

std::string store_failure_message(const std::string& server, const std::string& first,
                                  std::uint32_t failures) {
  return "the " + server + " could not store " + first + " (" + std::to_string(failures) +
         " iteration(s) not stored so far; see store_errors in the run report).";
}

void throw_not_allocated(const Variable& variable, int block) {
  throw Error(ECLUSE_BLOCK_NOT_FOUND, "commit of block " + std::to_string(block) +
                                          " of variable '" + variable.name +
                                          "': nothing is allocated in this iteration (a "
                                          "block allocated and not committed is dropped when "
                                          "its iteration ends); call alloc first.");
}

// The first 10, then the 16th, 32nd, 64th...: a run that skips a block an iteration for 100,000
// iterations logged 100,000 lines (7 MB a rank); the report counts every one.
void log_skipped(Log& log, const BlockData& block, std::uint64_t skipped, const std::string& why) {
  if (skipped > 10 && !std::has_single_bit(skipped)) return;
  const std::string next =
      skipped < 10 ? ""
                   : "; said again at " + std::to_string(std::bit_ceil(skipped + 1)) + " skipped";
  log.warning(why + ": write of variable '" + block.variable->name + "' at iteration " +
              std::to_string(block.iteration) + " skipped (policy skip, " +
              std::to_string(skipped) + " skipped so far" + next + ")");
}

}  // namespace ecluse
