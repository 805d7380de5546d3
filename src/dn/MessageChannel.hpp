// The messages of dedicated nodes on the channel communicator: fixed-size headers, payloads
// of any size (split in 64 KiB units plus a tail, so counts fit an int), credit returns.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>

#include "block/BlockMessage.hpp"

namespace ecluse {

inline constexpr int kHeaderTag = 7401;   // client -> server: BlockMessage
inline constexpr int kPayloadTag = 7402;  // client -> server: the bytes of a Write
inline constexpr int kCreditTag = 7403;   // server -> client: bytes freed, or kBye
/** Writes of blocks of at most kBatchedBlock bytes are gathered into batches (MessageType::Batch)
 * of at most kBatchPayload bytes after the batch's header: each block's header, then its data,
 * padded to 8 bytes. A client with many small blocks otherwise pays MPI's cost per message (two
 * per block) and, while its server sleeps between polls, the cost of sends that pile up. The
 * server's posted header receive holds a HeaderSlot. */
inline constexpr std::uint64_t kBatchedBlock = 8 * 1024;
inline constexpr std::uint64_t kBatchPayload = 32 * 1024;

/** The bytes a block of `bytes` takes in a batch. */
constexpr std::uint64_t batch_entry_bytes(std::uint64_t bytes) {
  return sizeof(BlockMessage) + (bytes + 7) / 8 * 8;
}
static_assert(batch_entry_bytes(kBatchedBlock) <= kBatchPayload);

struct HeaderSlot {
  BlockMessage header;
  char payload[kBatchPayload];  // right after the header: the sender packs them so
};
static_assert(offsetof(HeaderSlot, payload) == sizeof(BlockMessage));

/** Last credit message: the server has every message of this client. */
inline constexpr std::uint64_t kBye = ~std::uint64_t{0};

/** Server -> client: bytes freed (or kBye), how many iterations the server failed to store so
 * far and its first failure ("iteration I in store 'S': cause"), so a client learns of a failure
 * and its cause at its next end_iteration, and the first iteration it has not stored yet, which
 * the client names as lost if the server dies. The text is sent only once there is a failure:
 * a credit message is 24 bytes otherwise. */
struct CreditMessage {
  std::uint64_t bytes = 0;
  std::uint64_t store_failures = 0;
  std::uint64_t first_unstored = 0;
  char first_failure[1024] = {};
};

class MessageChannel {
 public:
  explicit MessageChannel(MPI_Comm comm);
  ~MessageChannel();
  MessageChannel(const MessageChannel&) = delete;
  MessageChannel& operator=(const MessageChannel&) = delete;

  [[nodiscard]] MPI_Comm comm() const { return comm_; }
  void send_header(const BlockMessage& header, int to, MPI_Request* request) const;
  /** A Batch: its header, then header.bytes of entries, `packed` (a HeaderSlot's layout). */
  void send_batch(const char* packed, const BlockMessage& header, int to,
                  MPI_Request* request) const;
  void receive_header(HeaderSlot& slot, int from, MPI_Request* request) const;
  /** Two requests: the units and the tail (either may be MPI_REQUEST_NULL). */
  void send_payload(const void* data, std::uint64_t bytes, int to, MPI_Request requests[2]) const;
  void receive_payload(void* data, std::uint64_t bytes, int from, MPI_Request requests[2]) const;
  void send_credit(const CreditMessage& credit, int to, MPI_Request* request) const;
  void receive_credit(CreditMessage& credit, int from, MPI_Request* request) const;

 private:
  MPI_Comm comm_;
  MPI_Datatype unit_ = MPI_DATATYPE_NULL;
};

/** True when every request of `requests` completed (null ones count as completed). */
bool test_all(MPI_Request* requests, int count);

}  // namespace ecluse
