/*
 * vmcu-tflite runtime: step kinds. Generated from the converter's op specs by
 * `python -m vmcu_tflite.codegen.kinds_header`. Do not edit.
 */
#ifndef VMCU_KINDS_H
#define VMCU_KINDS_H

/** Step kinds, one per kernel. The numbering is part of the table format. */
typedef enum {
    VMCU_KIND_CONV_2D = 0,
    VMCU_KIND_DEPTHWISE_CONV_2D = 1,
    VMCU_KIND_FULLY_CONNECTED = 2,
    VMCU_KIND_ADD = 3,
    VMCU_KIND_MUL = 4,
    VMCU_KIND_AVERAGE_POOL_2D = 5,
    VMCU_KIND_MAX_POOL_2D = 6,
    VMCU_KIND_MEAN = 7,
    VMCU_KIND_PAD = 8,
    VMCU_KIND_SOFTMAX = 9,
    VMCU_KIND_CONCATENATION = 10,
    VMCU_KIND_LOGISTIC = 11,
    VMCU_KIND_RESIZE_NEAREST_NEIGHBOR = 12,
    VMCU_KIND_TRANSPOSE = 13,
    VMCU_KIND_QUANTIZE = 14,
    VMCU_KIND_LAYER_CHAIN = 15,
    VMCU_KIND_RELU = 16,
    VMCU_KIND_RELU6 = 17,
    VMCU_KIND_ABS = 18,
    VMCU_KIND_LEAKY_RELU = 19,
    VMCU_KIND_TANH = 20,
    VMCU_KIND_HARD_SWISH = 21,
    VMCU_KIND_SUB = 22,
    VMCU_KIND_MAXIMUM = 23,
    VMCU_KIND_MINIMUM = 24,
    VMCU_KIND_PRELU = 25,
    VMCU_KIND_STRIDED_SLICE = 26,
    VMCU_KIND_SPLIT = 27,
    VMCU_KIND_SPLIT_V = 28,
    VMCU_KIND_RESIZE_BILINEAR = 29,
    VMCU_KIND_GATHER = 30,
    VMCU_KIND_PADV2 = 31,
    VMCU_KIND_REDUCE_MAX = 32,
    VMCU_KIND_L2_NORMALIZATION = 33,
    VMCU_KIND_TRANSPOSE_CONV = 34,
    VMCU_KIND_LOG_SOFTMAX = 35,
    VMCU_KIND_UNIDIRECTIONAL_SEQUENCE_LSTM = 36,
    VMCU_KIND_SVDF = 37,
    VMCU_KIND_TILE = 38,
    VMCU_KIND_CONSTANT = 39,
    VMCU_KIND_PACK = 40,
    VMCU_KIND_UNPACK = 41,
    VMCU_KIND_CAST = 47,
    VMCU_KIND_SignalWindow = 48,
    VMCU_KIND_SignalFftAutoScale = 49,
    VMCU_KIND_SignalRfft = 50,
    VMCU_KIND_SignalEnergy = 51,
    VMCU_KIND_SignalFilterBank = 54,
    VMCU_KIND_SignalFilterBankSquareRoot = 55,
    VMCU_KIND_SignalFilterBankSpectralSubtraction = 56,
    VMCU_KIND_SignalPCAN = 57,
    VMCU_KIND_SignalFilterBankLog = 58,
    VMCU_KIND_INT32_BINARY = 59,
    VMCU_KIND_NOISE_ESTIMATE = 60,
    VMCU_KIND_COUNT = 61
} vmcu_kind;

#endif /* VMCU_KINDS_H */
