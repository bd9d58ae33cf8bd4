/*
 * STAND-IN FOR COMPILE CHECKING ONLY. This is NOT Mbed OS.
 *
 * check_build.sh compiles ../main.cpp against this file because Mbed OS cannot be fetched
 * offline. It declares just the Mbed OS 6 API main.cpp uses (mbed::Timer,
 * rtos::ThisThread::sleep_for) with the same signatures, and does nothing: a program linked
 * with it neither measures time nor sleeps. A real build uses Mbed OS's own mbed.h.
 */
#ifndef VMCU_MBED_STAND_IN_H
#define VMCU_MBED_STAND_IN_H

#include <chrono>
#include <cstdint>

namespace mbed {

class Timer {
public:
    void start() {}
    void stop() {}
    void reset() {}
    std::chrono::microseconds elapsed_time() const { return std::chrono::microseconds(0); }
};

}  // namespace mbed

namespace rtos {
namespace ThisThread {

/* Mbed OS 6 takes Kernel::Clock::duration_u32, milliseconds in a uint32_t. */
inline void sleep_for(std::chrono::duration<uint32_t, std::milli>) {}

}  // namespace ThisThread
}  // namespace rtos

#endif /* VMCU_MBED_STAND_IN_H */
