"""Generate the int8 TFLite test fixtures in this folder.

Needs TensorFlow, a development-only dependency that nothing else in the
project imports:

    pip install tensorflow-cpu
    python models/generate.py [fixture ...]

Every fixture is a small Keras model with random (seeded) weights, converted
by the TFLite converter to a full-integer int8 model calibrated on random
data.  Running the script rewrites the fixtures named on its command line, or
every fixture listed in FIXTURES.
"""

import contextlib
import io
import os
import sys
import warnings

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")  # reproducible float maths
if __name__ == "__main__" and os.environ.get("PYTHONHASHSEED") != "0":
    # The converter's output depends on Python's string hashing (under some hash seeds an unrolled
    # LSTM's first gate SPLIT stays float between a DEQUANTIZE and QUANTIZEs): fix the seed.
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable, *sys.argv])

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import tensorflow as tf

warnings.filterwarnings("ignore", message="Statistics for quantized inputs")

OUT_DIR = Path(__file__).resolve().parent
SEED = 20240601
CALIBRATION_SAMPLES = 64
LOGIT_GAIN = 16.0

layers = tf.keras.layers


def uniform(low, high):
    """A random-uniform initializer seeded from the global seed at call time."""
    return tf.keras.initializers.RandomUniform(low, high)


def random_bias():
    """Small random biases, so that every bias tensor is exercised."""
    return uniform(-0.1, 0.1)


# ---------------------------------------------------------------- layer helpers


def conv(filters, kernel, strides=1, padding="same", activation=None, **kwargs):
    """Conv2D with a random bias."""
    return layers.Conv2D(filters, kernel, strides=strides, padding=padding,
                         activation=activation, bias_initializer=random_bias(),
                         **kwargs)


def depthwise(kernel, strides=1, padding="same", activation=None, **kwargs):
    """DepthwiseConv2D with a random bias."""
    return layers.DepthwiseConv2D(kernel, strides=strides, padding=padding,
                                  activation=activation, bias_initializer=random_bias(),
                                  **kwargs)


def dense(units, activation=None):
    """Dense layer with a random bias."""
    return layers.Dense(units, activation=activation, bias_initializer=random_bias())


def logits(units):
    """Dense layer with large weights, so the softmax after it is far from uniform."""
    wide = tf.keras.initializers.VarianceScaling(LOGIT_GAIN)
    return layers.Dense(units, kernel_initializer=wide, bias_initializer=random_bias())


def batch_norm():
    """BatchNormalization with random scale and offset (folded by the converter)."""
    return layers.BatchNormalization(gamma_initializer=uniform(0.5, 1.5),
                                     beta_initializer=uniform(-0.2, 0.2))


def relu_n1_to_1(x):
    """Clip to [-1, 1]; the converter fuses it as RELU_N1_TO_1."""
    return layers.Lambda(lambda t: tf.clip_by_value(t, -1.0, 1.0))(x)


def resize_nearest(x, factor):
    """Nearest-neighbour upsampling that converts to RESIZE_NEAREST_NEIGHBOR."""
    height, width = x.shape[1] * factor, x.shape[2] * factor
    return layers.Lambda(
        lambda t: tf.image.resize(t, (height, width), method="nearest"))(x)


def inverted_residual(x, expand, out_channels, strides=1, depth_multiplier=1):
    """MobileNetV2 block: 1x1 expand, 3x3 depthwise, 1x1 project (+ residual)."""
    y = conv(expand, 1)(x)
    y = layers.ReLU(6.0)(batch_norm()(y))
    y = depthwise(3, strides=strides, depth_multiplier=depth_multiplier)(y)
    y = layers.ReLU(6.0)(batch_norm()(y))
    y = batch_norm()(conv(out_channels, 1)(y))
    if strides == 1 and x.shape[-1] == out_channels:
        y = layers.Add()([x, y])
    return y


# -------------------------------------------------------------------- fixtures


def conv_stack():
    """CONV_2D: kernels 1, 2, 3, 5 and 3x1, strides 1 and 2, SAME and VALID, RELU, RELU6."""
    x = inp = layers.Input((16, 16, 3), batch_size=1)
    x = conv(8, 3, activation="relu")(x)
    x = conv(12, 5, strides=2, activation="relu6")(x)
    x = conv(16, 1, padding="valid")(x)
    x = conv(8, 3, strides=2, activation="relu")(x)
    x = conv(8, (3, 1), padding="valid", activation="relu6")(x)
    x = conv(6, 2, padding="valid")(x)
    return tf.keras.Model(inp, x)


def dilated_conv():
    """CONV_2D with dilation 2, SAME and VALID padding."""
    x = inp = layers.Input((16, 16, 4), batch_size=1)
    x = conv(8, 3, dilation_rate=2, activation="relu")(x)
    x = conv(8, 3, dilation_rate=2, padding="valid")(x)
    return tf.keras.Model(inp, x)


def depthwise_block():
    """MobileNetV2 inverted residual blocks with BatchNorm, depth multiplier 1 and 2."""
    x = inp = layers.Input((16, 16, 8), batch_size=1)
    x = inverted_residual(x, expand=32, out_channels=8)
    x = inverted_residual(x, expand=16, out_channels=24, strides=2, depth_multiplier=2)
    return tf.keras.Model(inp, x)


def pad_conv():
    """ZeroPadding2D (PAD) before a VALID conv and two VALID depthwise convs, MCUNet style."""
    x = inp = layers.Input((16, 16, 3), batch_size=1)
    x = layers.ZeroPadding2D(1)(x)
    x = conv(8, 3, strides=2, padding="valid", activation="relu6")(x)
    x = layers.ZeroPadding2D(1)(x)
    x = depthwise(3, strides=2, padding="valid", activation="relu6")(x)
    x = layers.ZeroPadding2D(((2, 1), (1, 2)))(x)
    x = depthwise(3, padding="valid")(x)
    return tf.keras.Model(inp, x)


def pool_mean_softmax():
    """AVERAGE_POOL_2D, MAX_POOL_2D, global MEAN, FULLY_CONNECTED and SOFTMAX."""
    x = inp = layers.Input((16, 16, 4), batch_size=1)
    x = conv(8, 3, activation="relu")(x)
    x = layers.AveragePooling2D(2)(x)
    x = conv(16, 3, activation="relu")(x)
    x = layers.MaxPooling2D(3, strides=2, padding="same")(x)
    x = layers.MaxPooling2D(2, strides=1, padding="valid")(x)
    x = layers.GlobalAveragePooling2D()(x)
    x = logits(10)(x)
    x = layers.Softmax()(x)
    return tf.keras.Model(inp, x)


def fc_batch():
    """FULLY_CONNECTED on 4 rows ([4, 16] -> [4, 8]) with RELU and RELU_N1_TO_1."""
    x = inp = layers.Input((16,), batch_size=4)
    x = dense(32, activation="relu")(x)
    x = relu_n1_to_1(dense(16)(x))
    x = dense(8)(x)
    return tf.keras.Model(inp, x)


def fc_per_channel():
    """fc_batch again, with per-channel FC weights (the converter's newer default)."""
    return fc_batch()


def elementwise():
    """Same-shape ADD and MUL, LOGISTIC and channel CONCATENATION."""
    x = inp = layers.Input((8, 8, 8), batch_size=1)
    a = conv(8, 1)(x)
    b = conv(8, 3)(x)
    total = layers.Add()([a, b])
    gated = layers.Multiply()([a, layers.Activation("sigmoid")(b)])
    x = layers.Concatenate(axis=-1)([total, gated, x])
    x = conv(8, 1, activation="relu")(x)
    return tf.keras.Model(inp, x)


def elementwise16():
    """A 16x8 model (int16 activations) of elementwise ops only: LOGISTIC and TANH of the input, their
    ADD, a MUL by the input, a SUB, RELU, LEAKY_RELU and RELU6 branches summed, a broadcasting MUL by
    a per-channel constant and a SOFTMAX over the channels."""
    x = inp = layers.Input((6, 6, 8), batch_size=1)
    s = layers.Activation("sigmoid")(x)
    t = layers.Activation("tanh")(x)
    m = layers.Multiply()([layers.Add()([s, t]), x])
    d = layers.Subtract()([m, s])
    r = layers.Add()([layers.ReLU()(d), layers.LeakyReLU(0.3)(d), layers.ReLU(max_value=6.0)(x)])
    scale = tf.constant(np.linspace(-1.5, 2.0, 8, dtype=np.float32).reshape(1, 1, 1, 8))
    r = layers.Lambda(lambda v: v * scale)(r)
    return tf.keras.Model(inp, layers.Softmax()(r))


def squeeze_excite():
    """Squeeze-and-excitation: global MEAN, FC, LOGISTIC and a broadcasting MUL."""
    x = inp = layers.Input((8, 8, 16), batch_size=1)
    x = conv(16, 3, activation="relu")(x)
    s = layers.GlobalAveragePooling2D(keepdims=True)(x)
    s = conv(4, 1, activation="relu")(s)
    s = conv(16, 1, activation="sigmoid")(s)
    x = layers.Multiply()([x, s])
    return tf.keras.Model(inp, x)


def resize_transpose():
    """RESIZE_NEAREST_NEIGHBOR (x2), TRANSPOSE, RESHAPE then FULLY_CONNECTED."""
    x = inp = layers.Input((4, 4, 8), batch_size=1)
    x = conv(8, 1, activation="relu")(x)
    x = resize_nearest(x, 2)
    x = conv(4, 3, activation="relu")(x)
    x = layers.Permute((3, 1, 2))(x)
    x = layers.Reshape((4 * 8 * 8,))(x)
    x = dense(10)(x)
    return tf.keras.Model(inp, x)


def squeeze():
    """SQUEEZE, which the converter keeps only with two dynamic dims (frozen to [1, 1, 1, 4] after)."""
    x = inp = layers.Input((None, 1, 4), batch_size=None)
    x = conv(8, 1)(x)
    x = layers.Lambda(lambda t: tf.squeeze(t, axis=[2]))(x)
    return tf.keras.Model(inp, x)


def float_io_classifier():
    """Float32 in and out (QUANTIZE, DEQUANTIZE) around a conv/depthwise/MEAN/FC classifier."""
    x = inp = layers.Input((12, 12, 3), batch_size=1)
    x = conv(8, 3, strides=2, activation="relu6")(x)
    x = depthwise(3, activation="relu6")(x)
    x = conv(16, 1, activation="relu6")(x)
    x = layers.GlobalAveragePooling2D()(x)
    x = logits(5)(x)
    x = layers.Softmax()(x)
    return tf.keras.Model(inp, x)


def float_io_residual():
    """Float32 in and out (QUANTIZE, DEQUANTIZE) around conv, conv, ADD with the block input."""
    x = inp = layers.Input((8, 8, 8), batch_size=1)
    y = conv(8, 3, activation="relu")(x)
    y = conv(8, 3)(y)
    x = layers.Add()([x, y])
    x = layers.ReLU()(x)
    return tf.keras.Model(inp, x)


def kws_like():
    """Keyword-spotting DS-CNN: 10x4 stride-2 conv on 49x10x1, DS blocks, avg pool, FC, softmax."""
    x = inp = layers.Input((49, 10, 1), batch_size=1)
    x = conv(24, (10, 4), strides=2)(x)
    x = layers.ReLU()(batch_norm()(x))
    for _ in range(2):
        x = depthwise(3)(x)
        x = layers.ReLU()(batch_norm()(x))
        x = conv(24, 1)(x)
        x = layers.ReLU()(batch_norm()(x))
    x = layers.AveragePooling2D(pool_size=x.shape[1:3])(x)
    x = layers.Flatten()(x)
    x = logits(12)(x)
    x = layers.Softmax()(x)
    return tf.keras.Model(inp, x)


def activations():
    """The activations as their own ops (HARD_SWISH, LEAKY_RELU, TANH, PRELU, ABS, RELU, RELU6),
    SUB, MAXIMUM, MINIMUM between branches, an L2_NORMALIZATION at the end and a LOG_SOFTMAX
    head as a second output."""
    x = inp = layers.Input((8, 8, 8), batch_size=1)
    a = conv(8, 1)(x)
    b = conv(8, 3)(x)
    h = layers.Activation("hard_swish")(a)
    leaky = layers.LeakyReLU(0.2)(b)
    d = layers.Subtract()([h, leaky])
    t = layers.Activation("tanh")(layers.Maximum()([d, b]))
    p = layers.PReLU(shared_axes=[1, 2], alpha_initializer=uniform(-0.5, 0.5))(layers.Minimum()([a, b]))
    m = layers.Lambda(lambda v: tf.abs(v))(layers.Concatenate()([t, p]))
    r = layers.Reshape((8, 8, 16))(layers.Lambda(lambda v: tf.nn.relu(tf.reshape(v, (1, 64, 16))))(m))
    r6 = layers.Reshape((8, 8, 16))(layers.Lambda(lambda v: tf.nn.relu6(tf.reshape(v, (1, 64, 16))))(m))
    x = conv(8, 1)(layers.Add()([r, r6]))
    scores = layers.Lambda(lambda v: tf.nn.log_softmax(v, axis=-1))(conv(6, 1)(a))
    return tf.keras.Model(inp, [layers.Lambda(lambda v: tf.math.l2_normalize(v, axis=-1))(x), scores])


def slices_resize():
    """RESIZE_BILINEAR (half-pixel centres and aligned corners), SPLIT, SPLIT_V and STRIDED_SLICE
    of activations (a reversed, strided slice), rejoined by CONCATENATION; GATHER of channels,
    PADV2 (a pad value of 0.5), REDUCE_MAX and a stride-2 TRANSPOSE_CONV."""
    x = inp = layers.Input((6, 6, 12), batch_size=1)
    x = conv(12, 1)(x)
    x = layers.Lambda(lambda v: tf.image.resize(v, (9, 9), method="bilinear"))(x)
    a, b, c = layers.Lambda(lambda v: tf.split(v, 3, axis=-1))(x)
    d, e = layers.Lambda(lambda v: tf.split(v, [2, 7], axis=1))(layers.Add()([a, b]))
    f = layers.Lambda(lambda v: v[:, ::-2, ::-2, :])(c)
    x = layers.Concatenate(axis=1)([e, d])
    x = conv(4, 3, strides=2)(x)
    x = layers.Concatenate(axis=-1)([x, f])
    x = layers.Lambda(lambda v: tf.compat.v1.image.resize_bilinear(v, (7, 7), align_corners=True))(x)
    x = layers.Lambda(lambda v: tf.gather(v, [5, 0, 7, 2, 2, 1], axis=-1))(x)
    x = layers.Lambda(lambda v: tf.pad(v, [[0, 0], [1, 0], [0, 2], [0, 0]], constant_values=0.5))(x)
    peaks = layers.Lambda(lambda v: tf.reduce_max(v, axis=[1, 2], keepdims=True))(x)
    x = layers.Multiply()([x, peaks])
    x = layers.Conv2DTranspose(4, 3, strides=2, padding="same", bias_initializer=random_bias())(x)
    return tf.keras.Model(inp, x)


def dynamic_batch():
    """A Keras export with a dynamic batch: its RESHAPE target is computed at run time by SHAPE,
    STRIDED_SLICE and PACK, which the converter folds for the stored batch of 1."""
    x = inp = layers.Input((6, 6, 4), batch_size=None)
    x = conv(8, 3, strides=2, activation="relu")(x)
    x = layers.Reshape((72,))(x)
    x = dense(5)(x)
    return tf.keras.Model(inp, x)


def resnet_stem():
    """A ResNet-style stem: 7x7 stride-2 conv, ZeroPadding2D (PAD) then a VALID 3x3 stride-2
    MAX_POOL_2D, a residual pair of 3x3 convs, a padded average pool and a classifier."""
    x = inp = layers.Input((32, 32, 3), batch_size=1)
    x = conv(16, 7, strides=2, activation="relu")(x)
    x = layers.ZeroPadding2D(1)(x)
    x = layers.MaxPooling2D(3, strides=2, padding="valid")(x)
    y = conv(16, 3, activation="relu")(x)
    y = conv(16, 3)(y)
    x = layers.ReLU()(layers.Add()([x, y]))
    x = layers.ZeroPadding2D(((0, 1), (0, 1)))(x)
    x = layers.AveragePooling2D(2, padding="valid")(x)
    x = layers.GlobalAveragePooling2D()(x)
    x = logits(10)(x)
    return tf.keras.Model(inp, x)


def nchw_input():
    """An NCHW input, as a PyTorch export has it: a Permute to NHWC (TRANSPOSE) before a
    MobileNetV2-style stem and block."""
    x = inp = layers.Input((3, 32, 32), batch_size=1)
    x = layers.Permute((2, 3, 1))(x)
    x = conv(8, 3, strides=2, activation="relu6")(x)
    x = inverted_residual(x, 24, 8)
    x = layers.GlobalAveragePooling2D()(x)
    x = logits(4)(x)
    return tf.keras.Model(inp, x)


def lstm_sequence():
    """A Keras LSTM over a [1, 8, 6] sequence returning every step (UNIDIRECTIONAL_SEQUENCE_LSTM:
    int8 input and output, int16 cell state, both states variable tensors), then a Dense on each
    step's output.

    Built with Keras 2 (`pip install tf-keras`): the converter fuses only Keras 2's LSTM into
    UNIDIRECTIONAL_SEQUENCE_LSTM; Keras 3's becomes a WHILE loop, on which its calibrator crashes.
    """
    import tf_keras

    tf_keras.utils.set_random_seed(SEED)
    k2 = tf_keras.layers
    x = inp = k2.Input((8, 6), batch_size=1)
    x = k2.LSTM(12, return_sequences=True, bias_initializer=tf_keras.initializers.RandomUniform(-0.1, 0.1))(x)
    x = k2.Dense(4, bias_initializer=tf_keras.initializers.RandomUniform(-0.1, 0.1))(x)
    return tf_keras.Model(inp, x)


def detector_tile():
    """A detection head that TILEs an activation, as SSD and FOMO heads do with anchors and
    context: a global context vector tiled back over the 8x8 grid (TILE of [1, 1, 1, 16] by
    [1, 8, 8, 1]), joined to the features, and each box row tiled twice along its anchors."""
    x = inp = layers.Input((16, 16, 3), batch_size=1)
    x = conv(16, 3, strides=2, activation="relu")(x)
    context = layers.GlobalAveragePooling2D(keepdims=True)(x)
    context = layers.Lambda(lambda v: tf.tile(v, [1, 8, 8, 1]))(context)
    x = layers.Concatenate()([x, context])
    boxes = layers.Reshape((64, 1, 6))(conv(6, 1)(x))
    boxes = layers.Lambda(lambda v: tf.tile(v, [1, 1, 2, 1]))(boxes)
    return tf.keras.Model(inp, layers.Reshape((128, 6))(boxes))


def ssd_detector():
    """A tiny SSD: an int8 conv backbone with two feature maps (8x8 and 4x4), two anchors per
    cell, and box (4 values) and class (3 scores) heads, each reshaped to [1, cells x anchors, n]
    and concatenated over both maps, as ST's SSD-MobileNet exports end. Their third output, the
    anchors, is added by `with_constant_anchors` after conversion."""
    x = inp = layers.Input((16, 16, 3), batch_size=1)
    x = conv(8, 3, strides=2, activation="relu")(x)
    big = conv(16, 3, strides=1, activation="relu")(x)
    small = conv(16, 3, strides=2, activation="relu")(big)
    boxes, classes = [], []
    for features, cells in ((big, 64), (small, 16)):
        boxes.append(layers.Reshape((cells * ANCHORS_PER_CELL, 4))(conv(ANCHORS_PER_CELL * 4, 1)(features)))
        classes.append(layers.Reshape((cells * ANCHORS_PER_CELL, 3))(conv(ANCHORS_PER_CELL * 3, 1)(features)))
    return tf.keras.Model(inp, [layers.Concatenate(axis=1)(boxes), layers.Concatenate(axis=1)(classes)])


ANCHORS_PER_CELL = 2


def with_constant_anchors(data):
    """The converted `ssd_detector` with the anchor output ST's SSD exports have: computed from
    constants alone at every run, RESHAPE of the 8x8 map's anchors and TILE of the 4x4 map's two
    anchor boxes over its 16 cells, joined by an int8 CONCATENATION and dequantized to a float32
    output ([1, 160, 4]: centre y, centre x, height, width, as fractions of the image).

    The TFLite converter folds such a subgraph into one constant, so it is written into the
    converted model here, as an older export left it."""
    import flatbuffers
    from tensorflow.lite.python import schema_py_generated as schema

    model = schema.ModelT.InitFromPackedBuf(data, 0)
    graph = model.subgraphs[0]
    scale, zero_point = 1.0 / 255, -128  # fractions in [0, 1], as uint8 anchors shifted to int8

    def quantized(values):
        return np.clip(np.round(np.asarray(values) / scale) + zero_point, -128, 127).astype(np.int8)

    def tensor(shape, dtype, name, values=None, quantize=True):
        t = schema.TensorT()
        t.shape, t.name = list(shape), name.encode()
        t.type = {"int8": schema.TensorType.INT8, "int32": schema.TensorType.INT32,
                  "float32": schema.TensorType.FLOAT32}[dtype]
        if quantize:
            t.quantization = schema.QuantizationParametersT()
            t.quantization.scale, t.quantization.zeroPoint = [scale], [zero_point]
        t.buffer = 0
        if values is not None:
            buffer = schema.BufferT()
            buffer.data = np.ascontiguousarray(values, dtype=dtype).tobytes()
            t.buffer = len(model.buffers)
            model.buffers.append(buffer)
        graph.tensors.append(t)
        return len(graph.tensors) - 1

    def op(kind, inputs, outputs, options=None, options_type=0):
        codes = [max(c.builtinCode, c.deprecatedBuiltinCode) for c in model.operatorCodes]
        code = getattr(schema.BuiltinOperator, kind)
        if code not in codes:
            c = schema.OperatorCodeT()
            c.builtinCode, c.deprecatedBuiltinCode, c.version = code, min(code, 127), 1
            model.operatorCodes.append(c)
            codes.append(code)
        o = schema.OperatorT()
        o.opcodeIndex, o.inputs, o.outputs = codes.index(code), list(inputs), list(outputs)
        o.builtinOptionsType, o.builtinOptions = options_type, options
        graph.operators.append(o)

    sizes = np.array([[0.2, 0.2], [0.3, 0.15]])  # (height, width) of the two anchors per cell
    grid = (np.arange(8) + 0.5) / 8
    big = np.array([[y, x, h, w] for y in grid for x in grid for h, w in sizes])  # [128, 4]
    big_flat = tensor((512,), "int8", "anchors/8x8", quantized(big.reshape(-1)))
    big_shape = tensor((3,), "int32", "anchors/8x8/shape", np.array([1, 128, 4]), quantize=False)
    big_out = tensor((1, 128, 4), "int8", "anchors/8x8/reshaped")
    reshape = schema.ReshapeOptionsT()
    reshape.newShape = [1, 128, 4]
    op("RESHAPE", [big_flat, big_shape], [big_out], reshape, schema.BuiltinOptions.ReshapeOptions)
    small_boxes = tensor((1, 2, 4), "int8", "anchors/4x4", quantized([[0.5, 0.5, 0.6, 0.6], [0.5, 0.5, 0.8, 0.4]]))
    multiples = tensor((3,), "int32", "anchors/4x4/multiples", np.array([1, 16, 1]), quantize=False)
    small_out = tensor((1, 32, 4), "int8", "anchors/4x4/tiled")
    op("TILE", [small_boxes, multiples], [small_out], schema.TileOptionsT(), schema.BuiltinOptions.TileOptions)
    joined = tensor((1, 160, 4), "int8", "anchors/int8")
    concat = schema.ConcatenationOptionsT()
    concat.axis = 1
    op("CONCATENATION", [big_out, small_out], [joined], concat, schema.BuiltinOptions.ConcatenationOptions)
    anchors = tensor((1, 160, 4), "float32", "anchors", quantize=False)
    op("DEQUANTIZE", [joined], [anchors], schema.DequantizeOptionsT(), schema.BuiltinOptions.DequantizeOptions)
    graph.outputs = list(graph.outputs) + [anchors]
    builder = flatbuffers.Builder(len(data) + 4096)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def ssd_postprocess():
    """A tiny quantized SSD as the Object Detection API exports it for TFLite Micro: an int8 conv
    backbone with two feature maps (8x8 and 4x4), two anchors per cell, a box head (4 values) and
    a class head (3 classes and the background first) ending in a sigmoid (LOGISTIC), each
    reshaped to [1, cells x anchors, n] and joined over both maps. `with_postprocess` appends the
    DEQUANTIZEs and TFLite_Detection_PostProcess."""
    x = inp = layers.Input((16, 16, 3), batch_size=1)
    x = conv(8, 3, strides=2, activation="relu")(x)
    big = conv(16, 3, strides=1, activation="relu")(x)
    small = conv(16, 3, strides=2, activation="relu")(big)
    boxes, classes = [], []
    for features, cells in ((big, 64), (small, 16)):
        boxes.append(layers.Reshape((cells * ANCHORS_PER_CELL, 4))(conv(ANCHORS_PER_CELL * 4, 1)(features)))
        scores = layers.Conv2D(ANCHORS_PER_CELL * 4, 1, activation="sigmoid", bias_initializer=CLASS_PRIOR,
                               kernel_initializer=tf.keras.initializers.VarianceScaling(LOGIT_GAIN))(features)
        classes.append(layers.Reshape((cells * ANCHORS_PER_CELL, 4))(scores))
    return tf.keras.Model(inp, [layers.Concatenate(axis=1)(boxes), layers.Concatenate(axis=1)(classes)])


# The class head's bias: most anchors see background, as detectors start training (a low prior).
CLASS_PRIOR = tf.keras.initializers.Constant(-1.0)
# Options as exported detectors set them (the Object Detection API's SSD defaults, fewer detections).
POSTPROCESS_OPTIONS = dict(max_detections=10, max_classes_per_detection=1, detections_per_class=100,
                           nms_score_threshold=0.6, nms_iou_threshold=0.6, num_classes=3, y_scale=10.0,
                           x_scale=10.0, h_scale=5.0, w_scale=5.0)


def with_postprocess(data, use_regular_nms=False):
    """The converted `ssd_postprocess` ending as quantized OD API exports do for TFLite Micro:
    each int8 head DEQUANTIZEd to float32, int8 anchors (the 8x8 map's two boxes per cell, then
    the 4x4 map's) DEQUANTIZEd, and the custom operator TFLite_Detection_PostProcess with its
    flexbuffer options, whose four float32 outputs (boxes, classes, scores, count) replace the
    model's. Anchor sizes make the two boxes of a cell overlap (IoU about 0.69) so that non-max
    suppression has boxes to remove."""
    import flatbuffers
    from flatbuffers import flexbuffers
    from tensorflow.lite.python import schema_py_generated as schema

    model = schema.ModelT.InitFromPackedBuf(data, 0)
    graph = model.subgraphs[0]

    def tensor(shape, dtype, name, values=None, quant=None):
        t = schema.TensorT()
        t.shape, t.name = list(shape), name.encode()
        t.type = {"int8": schema.TensorType.INT8, "float32": schema.TensorType.FLOAT32}[dtype]
        if quant is not None:
            t.quantization = schema.QuantizationParametersT()
            t.quantization.scale, t.quantization.zeroPoint = [quant[0]], [quant[1]]
        t.buffer = 0
        if values is not None:
            buffer = schema.BufferT()
            buffer.data = np.ascontiguousarray(values, dtype=dtype).tobytes()
            t.buffer = len(model.buffers)
            model.buffers.append(buffer)
        graph.tensors.append(t)
        return len(graph.tensors) - 1

    def code(builtin, custom=None):
        for i, c in enumerate(model.operatorCodes):
            if max(c.builtinCode, c.deprecatedBuiltinCode) == builtin and c.customCode == custom:
                return i
        c = schema.OperatorCodeT()
        c.builtinCode, c.deprecatedBuiltinCode, c.version, c.customCode = builtin, min(builtin, 127), 1, custom
        model.operatorCodes.append(c)
        return len(model.operatorCodes) - 1

    def op(opcode, inputs, outputs):
        o = schema.OperatorT()
        o.opcodeIndex, o.inputs, o.outputs = opcode, list(inputs), list(outputs)
        graph.operators.append(o)
        return o

    def dequantize(t, name):
        out = tensor(graph.tensors[t].shape, "float32", name)
        o = op(code(schema.BuiltinOperator.DEQUANTIZE), [t], [out])
        o.builtinOptionsType, o.builtinOptions = schema.BuiltinOptions.DequantizeOptions, schema.DequantizeOptionsT()
        return out

    # the converter may list the outputs in another order than Keras: theirs names end :0, :1
    ordered = sorted(graph.outputs, key=lambda t: graph.tensors[t].name)
    heads = [dequantize(t, name) for t, name in zip(ordered, ("box_encodings", "class_predictions"))]
    sizes = np.array([[0.25, 0.25], [0.3, 0.2]])  # (height, width) of the two anchors per cell
    anchors = [[y, x, h, w] for cells in (8, 4) for y in (np.arange(cells) + 0.5) / cells
               for x in (np.arange(cells) + 0.5) / cells for h, w in sizes]
    scale, zero_point = 1.0 / 255, -128  # fractions in [0, 1], as uint8 anchors shifted to int8
    quantized = np.clip(np.round(np.array(anchors) / scale) + zero_point, -128, 127).astype(np.int8)
    anchors = dequantize(tensor(quantized.shape, "int8", "anchors/int8", quantized, (scale, zero_point)), "anchors")
    m = POSTPROCESS_OPTIONS["max_detections"]
    outputs = [tensor(shape, "float32", name) for shape, name in (
        ((1, m, 4), "detection_boxes"), ((1, m), "detection_classes"), ((1, m), "detection_scores"),
        ((1,), "num_detections"))]
    post = op(code(schema.BuiltinOperator.CUSTOM, b"TFLite_Detection_PostProcess"), heads + [anchors], outputs)
    post.customOptions = list(flexbuffers.Dumps(dict(POSTPROCESS_OPTIONS, use_regular_nms=use_regular_nms)))
    graph.outputs = outputs
    builder = flatbuffers.Builder(len(data) + 4096)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def autoencoder16():
    """A convolutional autoencoder as anomaly detectors on spectrogram patches are built: two
    strided convs down to a small dense bottleneck, nearest-neighbour upsampling and convs back up
    to the input's shape (trained on normal data, its reconstruction error flags anomalies)."""
    x = inp = layers.Input((16, 16, 1), batch_size=1)
    x = conv(8, 3, strides=2, activation="relu")(x)
    x = conv(16, 3, strides=2, activation="relu")(x)
    x = layers.Flatten()(x)
    x = dense(16, activation="relu")(x)
    x = dense(4 * 4 * 16, activation="relu")(x)
    x = layers.Reshape((4, 4, 16))(x)
    x = resize_nearest(x, 2)
    x = conv(8, 3, activation="relu")(x)
    x = resize_nearest(x, 2)
    x = conv(1, 3)(x)
    return tf.keras.Model(inp, x)


def mixed_int8_int16():
    """An int8 backbone with an int16 head, as a model is deployed when its classifier loses too
    much accuracy at int8 but its convolutions do not: int8 CONV_2D (3x3, stride 2, RELU) and
    DEPTHWISE_CONV_2D (3x3, RELU), AVERAGE_POOL_2D and RESHAPE, a QUANTIZE from int8 to int16,
    then a 16x8 FULLY_CONNECTED (int64 bias) and an int16 SOFTMAX.

    The converter quantizes a whole model one way, so the flatbuffer is written directly (the
    tests' builder), as the converter would quantize each part: per-channel int8 convolution
    weights with int32 biases, per-tensor int8 FC weights with an int64 bias, symmetric int16
    activations, each activation's scale from the float range its layer produces on the
    calibration images.
    """
    sys.path.insert(0, str(OUT_DIR.parent))
    from tests.tflite_builder import ModelBuilder

    rng = np.random.default_rng(SEED)
    images = calibration_data((8, 8, 3), rng)

    def same_conv(x, w, bias, stride, depthwise):
        """Float SAME convolution of x [N, H, W, C] by w [O, kh, kw, C] ([1, kh, kw, C] depthwise)."""
        k = w.shape[1]
        out = -(-x.shape[1] // stride)
        pad = max((out - 1) * stride + k - x.shape[1], 0)
        x = np.pad(x, ((0, 0), (pad // 2, pad - pad // 2), (pad // 2, pad - pad // 2), (0, 0)))
        y = np.zeros((x.shape[0], out, out, x.shape[3] if depthwise else w.shape[0]), np.float32)
        for i in range(out):
            for j in range(out):
                patch = x[:, i * stride:i * stride + k, j * stride:j * stride + k, :]
                y[:, i, j] = (patch * w[0]).sum(axis=(1, 2)) if depthwise else np.einsum("nhwc,ohwc->no", patch, w)
        return np.maximum(y + bias, 0)

    def per_channel(w, axis):
        scales = np.abs(w).max(axis=tuple(a for a in range(w.ndim) if a != axis)) / 127
        shape = [1] * w.ndim
        shape[axis] = -1
        return np.round(w / scales.reshape(shape)).astype(np.int8), scales

    b = ModelBuilder()
    x_scale = 1.0 / 127
    image = b.tensor((1, 8, 8, 3), scale=x_scale, zero_point=0, name="image")
    x, x_float = image, images
    for name, shape, stride, depthwise in (("conv", (8, 3, 3, 3), 2, False), ("depthwise", (1, 3, 3, 8), 1, True)):
        w = rng.uniform(-0.5, 0.5, shape).astype(np.float32)
        bias = rng.uniform(-0.1, 0.1, shape[0] if not depthwise else shape[3]).astype(np.float32)
        y_float = same_conv(x_float, w, bias, stride, depthwise)
        y_scale = float(y_float.max() / 255)
        wq, w_scales = per_channel(w, 3 if depthwise else 0)
        bias_q = np.round(bias / (x_scale * w_scales)).astype(np.int32)
        inputs = [x, b.const(wq, scale=w_scales, zero_point=0, axis=3 if depthwise else 0),
                  b.const(bias_q, scale=x_scale * w_scales, zero_point=0)]
        y = b.tensor((1, *y_float.shape[1:]), scale=y_scale, zero_point=-128, name=name)
        options = dict(padding=0, stride_w=stride, stride_h=stride, fused_activation_function=1)
        if depthwise:
            b.op("DEPTHWISE_CONV_2D", inputs, [y], depth_multiplier=1, **options)
        else:
            b.op("CONV_2D", inputs, [y], **options)
        x, x_float, x_scale = y, y_float, y_scale
    pooled = b.tensor((1, 1, 1, 8), scale=x_scale, zero_point=-128, name="pooled")
    b.op("AVERAGE_POOL_2D", [x], [pooled], padding=1, stride_w=4, stride_h=4, filter_width=4, filter_height=4)
    features_float = x_float.mean(axis=(1, 2))
    features8 = b.tensor((1, 8), scale=x_scale, zero_point=-128, name="features")
    b.op("RESHAPE", [pooled, b.const(np.array([1, 8], np.int32))], [features8], new_shape=[1, 8])
    f_scale = float(np.abs(features_float).max() / 32767)
    features16 = b.tensor((1, 8), dtype="int16", scale=f_scale, zero_point=0, name="features16")
    b.op("QUANTIZE", [features8], [features16])
    w = rng.uniform(-1.0, 1.0, (6, 8)).astype(np.float32) * LOGIT_GAIN / 4
    bias = rng.uniform(-0.5, 0.5, 6).astype(np.float32)
    w_scale = float(np.abs(w).max() / 127)
    logits_float = features_float @ w.T + bias
    l_scale = float(np.abs(logits_float).max() / 32767)
    logits = b.tensor((1, 6), dtype="int16", scale=l_scale, zero_point=0, name="logits")
    b.op("FULLY_CONNECTED", [features16, b.const(np.round(w / w_scale).astype(np.int8), scale=w_scale, zero_point=0),
                             b.const(np.round(bias / (f_scale * w_scale)).astype(np.int64), scale=f_scale * w_scale,
                                     zero_point=0)], [logits])
    probabilities = b.tensor((1, 6), dtype="int16", scale=1.0 / 32768, zero_point=0, name="probabilities")
    b.op("SOFTMAX", [logits], [probabilities], beta=1.0)
    b.inputs, b.outputs = [image], [probabilities]
    return b.build()


def svdf_keyword():
    """A keyword model in the shape of TFLite Micro's SVDF one: two SVDF layers (rank 1 and 2,
    int16 state kept between runs) over a 40-feature frame, a FULLY_CONNECTED and a SOFTMAX.

    Keras has no SVDF layer and the converter makes none, so the flatbuffer is written directly
    (the tests' builder), from float weights quantized as the converter would quantize them: int8
    feature weights, int16 time weights and state, int32 biases at state x time scale, each
    activation's scale from the float range its layer produces on the calibration frames.
    """
    sys.path.insert(0, str(OUT_DIR.parent))
    from tests.tflite_builder import ModelBuilder

    rng = np.random.default_rng(SEED)
    frames = calibration_data((8, 40), rng)  # 64 sequences of 8 frames

    def svdf(x_float, units, rank, memory):
        filters = units * rank
        wf = rng.uniform(-0.5, 0.5, (filters, x_float.shape[-1])).astype(np.float32)
        wt = rng.uniform(-0.5, 0.5, (filters, memory)).astype(np.float32)
        bias = rng.uniform(-0.1, 0.1, units).astype(np.float32)
        state = np.zeros((x_float.shape[0], filters, memory), np.float32)
        features, outputs = [], []
        for t in range(x_float.shape[1]):
            state = np.concatenate([state[:, :, 1:], (x_float[:, t] @ wf.T)[:, :, None]], axis=2)
            features.append(state[:, :, -1])
            outputs.append((state * wt).sum(axis=2).reshape(-1, units, rank).sum(axis=2) + bias)
        return (wf, wt, bias), np.stack(features, 1), np.stack(outputs, 1)

    def scale_of(values, bits):
        return float(np.abs(values).max() / (2 ** (bits - 1) - 1))

    b = ModelBuilder()
    x_scale = 1.0 / 127
    x = first = b.tensor((1, 40), scale=x_scale, zero_point=0, name="frame")
    x_float = frames
    for i, (units, rank, memory) in enumerate(((16, 1, 8), (12, 2, 4))):
        (wf, wt, bias), features, y_float = svdf(x_float, units, rank, memory)
        state_scale, wf_scale, wt_scale = scale_of(features, 16), scale_of(wf, 8), scale_of(wt, 16)
        y_float = np.maximum(y_float, 0)  # the converter fuses the ReLU into the output's range
        y_scale, y_zero = float(y_float.max() / 255), -128
        bias_scale = float(np.float32(state_scale) * np.float32(wt_scale))
        inputs = [x,
                  b.const(np.round(wf / wf_scale).astype(np.int8), scale=wf_scale, zero_point=0),
                  b.const(np.round(wt / wt_scale).astype(np.int16), scale=wt_scale, zero_point=0),
                  b.const(np.round(bias / bias_scale).astype(np.int32), scale=bias_scale, zero_point=0),
                  b.tensor((1, units * rank * memory), dtype="int16", scale=state_scale, zero_point=0, variable=True,
                           name=f"svdf{i}/state")]
        y = b.tensor((1, units), scale=y_scale, zero_point=y_zero, name=f"svdf{i}/output")
        b.op("SVDF", inputs, [y], rank=rank, fused_activation_function=1)
        x, x_float, x_scale = y, y_float, y_scale
    w = rng.uniform(-0.5, 0.5, (4, 12)).astype(np.float32)
    w_scale = scale_of(w, 8)
    logit_scale = scale_of(x_float @ w.T, 8)
    logits = b.tensor((1, 4), scale=logit_scale, zero_point=0, name="logits")
    b.op("FULLY_CONNECTED", [x, b.const(np.round(w / w_scale).astype(np.int8), scale=w_scale, zero_point=0)],
         [logits])
    probabilities = b.tensor((1, 4), scale=1.0 / 256, zero_point=-128, name="probabilities")
    b.op("SOFTMAX", [logits], [probabilities], beta=1.0)
    b.inputs, b.outputs = [first], [probabilities]
    return b.build()


def audio_preprocessor():
    """micro_speech's audio preprocessor (TFLite Micro's audio_preprocessor.py, default FeatureParams):
    int16 samples through the signal library's custom operators and int32 arithmetic to int8 features.
    The converter cannot make it without TFLite Micro's TF op libraries, so the flatbuffer is written
    directly, its tables computed as the library's Python op wrappers compute them (audio_front_end.py)."""
    sys.path.insert(0, str(OUT_DIR.parent))
    sys.path.insert(0, str(OUT_DIR))
    from tests.tflite_builder import ModelBuilder
    from audio_front_end import audio_preprocessor as build

    return build(ModelBuilder)


def conv1d_signal():
    """A 1-D CNN over a [32, 4] signal as Keras users build it (dynamic batch): each Conv1D and
    MaxPooling1D exports as EXPAND_DIMS, the 2-D op, then RESHAPE back; the model ends with an
    EXPAND_DIMS of its own at a negative axis (`tf.expand_dims(v, -2)`)."""
    x = inp = layers.Input((32, 4), batch_size=None)
    x = layers.Conv1D(8, 5, padding="same", activation="relu", bias_initializer=random_bias())(x)
    x = layers.Conv1D(8, 3, strides=2, bias_initializer=random_bias())(x)
    x = layers.MaxPooling1D(2)(x)
    x = layers.Conv1D(6, 3, padding="same", bias_initializer=random_bias())(x)
    return tf.keras.Model(inp, layers.Lambda(lambda v: tf.expand_dims(v, -2))(x))


def as_16x8(data):
    """The converted int8 model requantized to 16x8 as the converter would make it if it could (it stops with
    "Quantization to 16x8-bit not yet supported for op: 'UNIDIRECTIONAL_SEQUENCE_LSTM'"): every int8
    activation (variable tensors included) becomes int16 with zero point 0 and a symmetric scale covering
    the int8 tensor's range; every int32 bias becomes int64 at its op's new input scale. Weights stay int8
    and the int16 cell state as it is."""
    import flatbuffers
    from tensorflow.lite.python import schema_py_generated as schema

    model = schema.ModelT.InitFromPackedBuf(data, 0)
    graph = model.subgraphs[0]
    constant = lambda t: model.buffers[t.buffer].data is not None and len(model.buffers[t.buffer].data)  # noqa: E731
    old_scale = {}
    for index, t in enumerate(graph.tensors):
        if t.type != schema.TensorType.INT8 or constant(t) or t.quantization is None:
            continue
        scale, zero = float(t.quantization.scale[0]), int(t.quantization.zeroPoint[0])
        old_scale[index] = scale
        reach = max(abs(-128 - zero), abs(127 - zero)) * scale
        t.type = schema.TensorType.INT16
        t.quantization.scale = [reach / 32767.0]
        t.quantization.zeroPoint = [0]
    for op in graph.operators:
        source = op.inputs[0]
        if source not in old_scale:
            continue
        ratio = old_scale[source] / graph.tensors[source].quantization.scale[0]
        for index in op.inputs[1:]:
            t = graph.tensors[index] if index >= 0 else None
            if t is None or t.type != schema.TensorType.INT32 or not constant(t):
                continue
            buffer = model.buffers[t.buffer]
            bias = np.frombuffer(bytes(buffer.data), dtype="<i4").astype(np.float64)
            buffer.data = np.round(bias * ratio).astype("<i8").tobytes()
            t.type = schema.TensorType.INT64
            t.quantization.scale = [s / ratio for s in t.quantization.scale]
    builder = flatbuffers.Builder(len(data) + 4096)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def lstm_unrolled():
    """A speech-style recurrent model unrolled by Keras (`LSTM(unroll=True)` over 5 frames of 10
    features): the time axis is UNPACKed into one tensor per step, each step's gates are
    FULLY_CONNECTED, SPLIT, LOGISTIC, TANH, MUL and ADD, and the steps' outputs are PACKed back
    into a sequence (`return_sequences`) for a Dense on every step."""
    x = inp = layers.Input((5, 10), batch_size=1)
    x = layers.LSTM(8, unroll=True, return_sequences=True, bias_initializer=random_bias())(x)
    return tf.keras.Model(inp, dense(4)(x))


def gru_unrolled():
    """A speech-style GRU unrolled by Keras (`GRU(unroll=True)` over 5 frames of 10 features): each
    step's gates are FULLY_CONNECTED, SPLIT, STRIDED_SLICE, LOGISTIC, TANH, MUL, ADD and SUB (the
    update gate's 1 - z), the steps' outputs PACKed into a sequence for a Dense on every step."""
    x = inp = layers.Input((5, 10), batch_size=1)
    x = layers.GRU(8, unroll=True, return_sequences=True, bias_initializer=random_bias())(x)
    return tf.keras.Model(inp, dense(4)(x))


STREAM_FRAMES, STREAM_FEATURES, STREAM_UNITS = 4, 8, 8
STREAM_OPS = ("CALL_ONCE", "VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE", "BATCH_MATMUL")


class FrameHistory(tf.Module):
    """A streaming feature model as users write one for a microcontroller: a tf.Variable keeps the
    last frames between calls (its initial value a learned-looking prior, not zeros, so that the
    initialisation shows); each call drops the oldest frame, joins the new one, stores the window
    back, projects it with a Dense layer (FULLY_CONNECTED + RELU) and correlates the projection
    with the window (`tf.matmul` of two activations, transposed: BATCH_MATMUL with adj_x)."""

    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(SEED)
        prior = rng.uniform(-1.0, 1.0, (1, STREAM_FRAMES, STREAM_FEATURES)).astype(np.float32)
        self.history = tf.Variable(prior, trainable=False, name="history")
        dense = layers.Dense(STREAM_UNITS, bias_initializer=random_bias())
        dense.build((None, STREAM_FEATURES))
        # the Dense layer's weights as constants: its own variables would be resource variables too,
        # read before anything assigns them while the converter calibrates
        self.kernel, self.bias = tf.constant(dense.kernel.numpy()), tf.constant(dense.bias.numpy())

    @tf.function(input_signature=[tf.TensorSpec((1, 1, STREAM_FEATURES), tf.float32)])
    def __call__(self, frame):
        window = tf.concat([self.history[:, 1:, :], frame], axis=1)
        self.history.assign(window)
        projected = tf.nn.relu(tf.matmul(window, self.kernel) + self.bias)
        correlation = tf.matmul(projected, window, transpose_a=True)
        return tf.reshape(correlation, (1, STREAM_UNITS * STREAM_FEATURES))


def stateful_stream():
    """FrameHistory converted with resource variables (`experimental_enable_resource_variables`)
    and full int8 quantization; `_experimental_variable_quantization` makes the variable int8 (the
    converter keeps it float32 otherwise). The model has a CALL_ONCE initialisation subgraph that
    assigns the prior; its output depends on the previous calls."""
    tf.keras.utils.set_random_seed(SEED)
    module = FrameHistory()
    converter = tf.lite.TFLiteConverter.from_concrete_functions([module.__call__.get_concrete_function()], module)
    converter.experimental_enable_resource_variables = True
    converter._experimental_variable_quantization = True
    converter.optimizations = [tf.lite.Optimize.DEFAULT]
    rng = np.random.default_rng(SEED)
    frames = rng.uniform(-1.0, 1.0, (CALIBRATION_SAMPLES, 1, 1, STREAM_FEATURES)).astype(np.float32)
    converter.representative_dataset = lambda: ([f] for f in frames)
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    converter.inference_input_type = tf.int8
    converter.inference_output_type = tf.int8
    with contextlib.redirect_stdout(io.StringIO()):
        data = converter.convert()
    check_operators(data, STREAM_OPS)
    return data


def heavy_16x8():
    """The heavy layers quantized 16x8 (int16 activations, int8 weights): CONV_2D 3x3 s2, DEPTHWISE_CONV_2D
    3x3, a pointwise CONV_2D, FULLY_CONNECTED over the flattened map."""
    x = inp = layers.Input((10, 10, 3), batch_size=1)
    x = conv(8, 3, strides=2, activation="relu")(x)
    x = depthwise(3, activation="relu6")(x)
    x = conv(8, 1)(x)
    x = layers.Flatten()(x)
    x = dense(6)(x)
    return tf.keras.Model(inp, x)


def check_operators(data, expected):
    """Fail unless the converted model has every operator in `expected`."""
    from tensorflow.lite.python import schema_py_generated as schema

    model = schema.ModelT.InitFromPackedBuf(data, 0)
    names = {v: k for k, v in vars(schema.BuiltinOperator).items() if not k.startswith("_")}
    found = {names[max(c.builtinCode, c.deprecatedBuiltinCode)] for c in model.operatorCodes}
    missing = [op for op in expected if op not in found]
    if missing:
        raise SystemExit(f"the converter left out {', '.join(missing)} (it made {', '.join(sorted(found))})")


def sixteen_by_eight():
    """A 16x8 model (int16 activations) of data movement and pooling with float I/O: ZeroPadding2D
    (PAD) before a SAME average pool (not folded), a max pool, a Permute (TRANSPOSE) joined to its
    input (CONCATENATION), a Reshape and a global average (MEAN)."""
    x = inp = layers.Input((12, 12, 4), batch_size=1)
    x = layers.ZeroPadding2D(((1, 0), (0, 1)))(x)
    x = layers.AveragePooling2D(3, strides=2, padding="same")(x)
    x = layers.MaxPooling2D(2)(x)
    x = layers.Concatenate()([x, layers.Permute((2, 1, 3))(x)])
    x = layers.Reshape((9, 8))(x)
    x = layers.GlobalAveragePooling1D()(x)
    return tf.keras.Model(inp, x)


@dataclass(frozen=True)
class Fixture:
    name: str
    build: Callable[[], tf.keras.Model] | None
    flatbuffer: Callable[[], bytes] | None = None  # written directly instead (an op no Keras layer makes)
    float_io: bool = False
    per_channel_dense: bool = False
    freeze_shapes: bool = False  # drop the dynamic shape signature, keeping the static shapes
    edit: Callable[[bytes], bytes] | None = None  # applied to the converted flatbuffer
    activations16: bool = False  # 16x8: int16 activations, int8 weights (the converter's experimental ops set)


FIXTURES = [
    Fixture("conv_stack", conv_stack),
    Fixture("dilated_conv", dilated_conv),
    Fixture("depthwise_block", depthwise_block),
    Fixture("pad_conv", pad_conv),
    Fixture("pool_mean_softmax", pool_mean_softmax),
    Fixture("fc_batch", fc_batch),
    Fixture("fc_per_channel", fc_per_channel, per_channel_dense=True),
    Fixture("elementwise", elementwise),
    Fixture("squeeze_excite", squeeze_excite),
    Fixture("resize_transpose", resize_transpose),
    Fixture("squeeze", squeeze, freeze_shapes=True),
    Fixture("float_io_classifier", float_io_classifier, float_io=True),
    Fixture("float_io_residual", float_io_residual, float_io=True),
    Fixture("kws_like", kws_like),
    Fixture("activations", activations),
    Fixture("slices_resize", slices_resize),
    Fixture("dynamic_batch", dynamic_batch),
    Fixture("resnet_stem", resnet_stem),
    Fixture("nchw_input", nchw_input),
    Fixture("lstm_sequence", lstm_sequence),
    Fixture("detector_tile", detector_tile),
    Fixture("svdf_keyword", None, flatbuffer=svdf_keyword),
    Fixture("ssd_detector", ssd_detector, edit=with_constant_anchors),
    Fixture("conv1d_signal", conv1d_signal),
    Fixture("lstm_unrolled", lstm_unrolled),
    Fixture("ssd_postprocess", ssd_postprocess, edit=with_postprocess),
    Fixture("ssd_postprocess_regular", ssd_postprocess, edit=lambda data: with_postprocess(data, use_regular_nms=True)),
    Fixture("stateful_stream", None, flatbuffer=stateful_stream),
    Fixture("audio_preprocessor", None, flatbuffer=audio_preprocessor),
    Fixture("sixteen_by_eight", sixteen_by_eight, float_io=True, activations16=True),
    Fixture("heavy_16x8", heavy_16x8, activations16=True),
    Fixture("kws_dscnn_16x8", kws_like, activations16=True),
    Fixture("autoencoder_16x8", autoencoder16, activations16=True),
    Fixture("lstm_16x8", lstm_unrolled, activations16=True),
    Fixture("gru_16x8", gru_unrolled, activations16=True),
    Fixture("mixed_int8_int16", None, flatbuffer=mixed_int8_int16),
    Fixture("elementwise16", elementwise16, activations16=True),
    Fixture("lstm_sequence_16x8", lstm_sequence, edit=as_16x8),
]


# ------------------------------------------------------------------ conversion


def input_shape(model):
    """The model's input shape with unknown dimensions set to 1."""
    return tuple(1 if d is None else d for d in model.inputs[0].shape)


def calibration_data(shape, rng):
    """Random uniform samples in [-1, 1] used for calibration."""
    return rng.uniform(-1.0, 1.0, (CALIBRATION_SAMPLES,) + shape).astype(np.float32)


def calibrate_batch_norm(model, samples):
    """Set every BatchNorm's moving statistics to those of the random samples.

    With random weights the default statistics (mean 0, variance 1) leave some
    activations with a tiny range, which gives unusable quantization scales.
    """
    batch = np.concatenate(samples)
    for layer in model.layers:
        if isinstance(layer, layers.BatchNormalization):
            probe = tf.keras.Model(model.input, layer.input)
            activations = probe(batch, training=False).numpy()
            axes = tuple(range(activations.ndim - 1))
            layer.moving_mean.assign(activations.mean(axis=axes))
            layer.moving_variance.assign(activations.var(axis=axes))


def convert(model, samples, fixture):
    """Convert to a full-integer int8 TFLite flatbuffer.

    Conv and depthwise weights are quantized per channel.  Dense weights are
    quantized per tensor, as most deployed models have them, unless the
    fixture asks for the converter's newer per-channel default.
    """
    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    converter.optimizations = [tf.lite.Optimize.DEFAULT]
    converter.representative_dataset = lambda: ([s] for s in samples)
    converter.target_spec.supported_ops = [
        tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8 if fixture.activations16
        else tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    # Private switch (TF >= 2.15) that restores per-tensor Dense weights.
    converter._experimental_disable_per_channel_quantization_for_dense_layers = (
        not fixture.per_channel_dense)
    if not fixture.float_io:
        converter.inference_input_type = tf.int16 if fixture.activations16 else tf.int8
        converter.inference_output_type = tf.int16 if fixture.activations16 else tf.int8
    with contextlib.redirect_stdout(io.StringIO()):  # silence Keras' export listing
        return converter.convert()


def freeze_shapes(data):
    """The same model with every tensor's shape signature removed: all shapes become static."""
    import flatbuffers
    from tensorflow.lite.python import schema_py_generated as schema

    model = schema.ModelT.InitFromPackedBuf(data, 0)
    for subgraph in model.subgraphs:
        for tensor in subgraph.tensors:
            tensor.shapeSignature = None
    builder = flatbuffers.Builder(len(data) + 1024)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def generate(fixture):
    """Build, calibrate and convert one fixture; returns the flatbuffer bytes."""
    if fixture.flatbuffer is not None:
        return fixture.flatbuffer()
    tf.keras.backend.clear_session()  # restart layer names at conv2d, dense, ...
    tf.keras.utils.set_random_seed(SEED)
    model = fixture.build()
    rng = np.random.default_rng(SEED)
    samples = calibration_data(input_shape(model), rng)
    calibrate_batch_norm(model, samples)
    data = convert(model, samples, fixture)
    data = freeze_shapes(data) if fixture.freeze_shapes else data
    return fixture.edit(data) if fixture.edit is not None else data


def main(names):
    """Rewrite the fixtures named on the command line, or all of them."""
    unknown = set(names) - {f.name for f in FIXTURES}
    if unknown:
        raise SystemExit(f"unknown fixtures: {', '.join(sorted(unknown))}")
    for fixture in FIXTURES:
        if names and fixture.name not in names:
            continue
        data = generate(fixture)
        path = OUT_DIR / f"{fixture.name}.tflite"
        path.write_bytes(data)
        print(f"{path.name}: {len(data)} bytes")


if __name__ == "__main__":
    main(sys.argv[1:])
