// populate_pages: every page of a range is resident afterwards, whole pages and partial ends,
// private and shared memory, and nothing it held has changed.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstdint>
#include <vector>

#include "core/Pages.hpp"

namespace ecluse {
namespace {

std::size_t resident_pages(void* map, std::size_t bytes) {
  std::vector<unsigned char> flags((bytes + page_bytes() - 1) / page_bytes());
  EXPECT_EQ(::mincore(map, bytes, flags.data()), 0);
  std::size_t resident = 0;
  for (unsigned char f : flags) resident += f & 1;
  return resident;
}

void check(int sharing) {
  const std::size_t page = page_bytes();
  const std::size_t bytes = 16 * page;
  void* map = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, sharing | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(map, MAP_FAILED);
  auto* data = static_cast<char*>(map);
  data[5 * page + 7] = 'x';  // one page holds data already
  ASSERT_EQ(resident_pages(map, bytes), 1u);
  // From the middle of page 1 to the middle of page 14: both partial ends included.
  ASSERT_EQ(populate_pages(data + page + 100, 13 * page, sharing == MAP_SHARED), 0);
  EXPECT_EQ(resident_pages(map, bytes), 14u);  // pages 1 to 14
  EXPECT_EQ(data[5 * page + 7], 'x');
  EXPECT_EQ(data[page + 100], 0);
  ::munmap(map, bytes);
}

TEST(Pages, PopulatesPrivateMemoryWithoutChangingIt) {
  check(MAP_PRIVATE);
}

TEST(Pages, PopulatesSharedMemoryWithoutChangingIt) {
  check(MAP_SHARED);
}

TEST(Pages, AnEmptyRangeIsNothingToDo) {
  EXPECT_EQ(populate_pages(nullptr, 0, false), 0);
}

}  // namespace
}  // namespace ecluse
