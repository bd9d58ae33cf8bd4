/*
 * vmcu-tflite runtime, private: the checks of a model's tables that every entry point makes
 * before it trusts them (vmcu_tables.c).
 */
#ifndef VMCU_TABLES_H
#define VMCU_TABLES_H

#include "vmcu/vmcu_types.h"

/** The model struct's own integers in declaration order, each as 4 bytes little-endian: its CRC. */
uint32_t vmcu_header_digest(const vmcu_model *model);

/** 1 when the model's sizes and the counts of its arrays match `header_crc`, its arrays are
 *  there and its initial state lies in the state region: the counts can be trusted. */
int vmcu_header_ok(const vmcu_model *model);

/** 1 when input or output `io` is one run of bytes inside the pool (what vmcu_input()/vmcu_output()
 *  hand out; a streamed port's other checks are vmcu_check_tables()'). */
int vmcu_io_in_pool(const vmcu_model *model, const vmcu_io *io);

/**
 * Every table against the model's own sizes, then every step's params against what its kernel
 * will touch (its kernel's check): VMCU_OK, or VMCU_ERROR_BAD_MODEL with `*failed_step` the
 * step that failed (left as it is when the model's own tables do).
 */
vmcu_status vmcu_check_tables(const vmcu_model *model, uint16_t *failed_step);

#endif /* VMCU_TABLES_H */
