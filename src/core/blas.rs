//! [`Blas`]: a cuBLAS handle (hipBLAS on the HIP backend) bound to a [`Stream`], with typed,
//! checked GEMM and strided-batched GEMM over [`Buffer`](super::Buffer)s and their views.
//!
//! Written on [`crate::cublas`] only, so it is the same code on every backend. Matrices are
//! **column-major**, as in cuBLAS (and BLAS): element `(i, j)` of a matrix with leading
//! dimension `ld` is element `i + j * ld` of its buffer. A row-major `C = A B` is the
//! column-major `Cᵀ = Bᵀ Aᵀ`: swap the operands and `m` with `n`.
//!
//! The checks that keep a safe call inside its buffers live here, and run before cuBLAS sees
//! the call (a refused call is [`ErrorCode::Usage`](super::ErrorCode::Usage) and queues
//! nothing):
//! - `m`, `n`, `k`, the leading dimensions and the batch count fit cuBLAS's 32-bit `int`, and
//!   the batch strides its `long long` (this layer calls the 32-bit entry points, which every
//!   cuBLAS and hipBLAS has; a dimension past `i32::MAX` is refused, not truncated);
//! - every leading dimension is at least the rows of its operand's storage (and at least 1);
//! - every operand's extent, `ld * (cols - 1) + rows`, plus `(batch - 1) * stride` for a
//!   strided batch, fits its buffer, computed without overflow;
//! - C's span (from its first element to its last, the whole batch) does not intersect A's or
//!   B's (the borrow checker already keeps a buffer from being both an input and the output;
//!   this also covers memory wrapped twice with
//!   [`Buffer::from_handle`](super::Buffer::from_handle)), and the matrices of C do not overlap
//!   one another (cuBLAS computes them concurrently): whole matrices one after another, or
//!   interleaved inside each column's leading dimension; any other layout is refused rather
//!   than searched;
//! - every buffer belongs to the handle's context.
//!
//! A GEMM reads A and B and writes C on the handle's stream: those are uses of the three
//! buffers on that stream, tracked as a copy or a launch is, so a buffer's stream-ordered free
//! waits for the GEMM (see [`super::memory`]). While the stream captures a graph, the graph
//! keeps the buffers and the handle alive. Scalars (`alpha`, `beta`) are passed by value from
//! the host (`CUBLAS_POINTER_MODE_HOST`, set when the handle is created), so a captured GEMM
//! holds their values.
//!
//! ```no_run
//! use anycuda::core::{Blas, Device, Gemm, Transpose};
//! let stream = Device::new(0)?.create_stream(Default::default())?;
//! let (m, n, k) = (64, 32, 16);
//! let a = stream.clone_from_host(&vec![1.0f32; m * k])?; // m x k, column-major
//! let b = stream.clone_from_host(&vec![2.0f32; n * k])?; // n x k: used transposed
//! let mut c = stream.alloc_zeros::<f32>(m * n)?;
//! let blas = Blas::new(&stream)?;
//! blas.gemm(&Gemm::new(m, n, k).transb(Transpose::Transpose), &a, &b, &mut c)?;
//! assert!(c.to_vec()?.iter().all(|&x| x == 32.0));
//! # Ok::<(), anycuda::core::CoreError>(())
//! ```

use super::context::Context;
use super::error::{CoreError, Result};
use super::memory::{BufferView, BufferViewMut, DeviceCopy, DeviceSlice, DeviceSliceMut};
use super::stream::Stream;
use super::track;
use crate::cublas::{
    self as raw, cublasHandle_t, cublasOperation_t, cublasPointerMode_t, cublasStatus_t,
};
use std::cell::Cell;
use std::ffi::{c_int, c_longlong};
use std::fmt;
use std::marker::PhantomData;
use std::mem::size_of;
use std::sync::Arc;

/// A cuBLAS status as the safe layer's error, naming the call.
#[inline]
fn check(call: &'static str, code: cublasStatus_t) -> Result<()> {
    match code.result() {
        Ok(()) => Ok(()),
        Err(e) => Err(CoreError::cublas(call, e.0)),
    }
}

/// What GEMM does to an operand before the product (cuBLAS's `cublasOperation_t`).
///
/// For the real types of this layer, [`Transpose::ConjugateTranspose`] is the transpose.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Transpose {
    /// `CUBLAS_OP_N`: the operand as stored.
    #[default]
    None,
    /// `CUBLAS_OP_T`: the transpose.
    Transpose,
    /// `CUBLAS_OP_C`: the conjugate transpose.
    ConjugateTranspose,
}

impl Transpose {
    /// The cuBLAS value.
    #[inline]
    pub fn as_raw(self) -> cublasOperation_t {
        match self {
            Transpose::None => cublasOperation_t::CUBLAS_OP_N,
            Transpose::Transpose => cublasOperation_t::CUBLAS_OP_T,
            Transpose::ConjugateTranspose => cublasOperation_t::CUBLAS_OP_C,
        }
    }
    /// Whether the operand is used transposed (its storage is the product's shape swapped).
    #[inline]
    pub fn is_transposed(self) -> bool {
        self != Transpose::None
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    #[cfg(feature = "half")]
    impl Sealed for half::f16 {}
    #[cfg(feature = "half")]
    impl Sealed for half::bf16 {}
}

/// The type of GEMM's scalars `alpha` and `beta`: `f32` or `f64`.
pub trait BlasScalar:
    Copy + fmt::Debug + PartialEq + Send + Sync + sealed::Sealed + 'static
{
    /// One: the default `alpha`.
    const ONE: Self;
    /// Zero: the default `beta` (C is then written, never read).
    const ZERO: Self;
}
impl BlasScalar for f32 {
    const ONE: f32 = 1.0;
    const ZERO: f32 = 0.0;
}
impl BlasScalar for f64 {
    const ONE: f64 = 1.0;
    const ZERO: f64 = 0.0;
}

/// A GEMM, `C = alpha * op(A) * op(B) + beta * C`, described in cuBLAS's terms (column-major):
/// `op(A)` is `m x k`, `op(B)` is `k x n`, `C` is `m x n`.
///
/// [`Gemm::new`] gives `alpha = 1`, `beta = 0`, no transposes and tight leading dimensions;
/// the builder methods change one field each. A leading dimension left `None` is the tight
/// one, the rows of that operand's storage (at least 1), so it follows the transposes.
///
/// ```
/// use anycuda::core::{Gemm, Transpose};
/// let g = Gemm::<f32>::new(4, 3, 2).transa(Transpose::Transpose).ldc(8).beta(0.5);
/// assert_eq!(g.a_shape(), (2, 4)); // op(A) = Aᵀ is 4 x 2, so A is stored 2 x 4
/// assert_eq!(g.leading_dimensions(), [2, 2, 8]);
/// assert_eq!(g.min_lens(), Some([8, 6, 8 * 2 + 4]));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gemm<S = f32> {
    /// `op(A)`.
    pub transa: Transpose,
    /// `op(B)`.
    pub transb: Transpose,
    /// Rows of `op(A)` and of `C`.
    pub m: usize,
    /// Columns of `op(B)` and of `C`.
    pub n: usize,
    /// Columns of `op(A)`, rows of `op(B)`.
    pub k: usize,
    /// The product's factor.
    pub alpha: S,
    /// C's factor (with zero, C is only written).
    pub beta: S,
    /// A's leading dimension; `None`: tight.
    pub lda: Option<usize>,
    /// B's leading dimension; `None`: tight.
    pub ldb: Option<usize>,
    /// C's leading dimension; `None`: tight (`m`, at least 1).
    pub ldc: Option<usize>,
}

impl<S: BlasScalar> Gemm<S> {
    /// `C = op(A) op(B)` of an `m x k` by a `k x n`: `alpha = 1`, `beta = 0`, no transposes,
    /// tight leading dimensions.
    pub fn new(m: usize, n: usize, k: usize) -> Self {
        Gemm {
            transa: Transpose::None,
            transb: Transpose::None,
            m,
            n,
            k,
            alpha: S::ONE,
            beta: S::ZERO,
            lda: None,
            ldb: None,
            ldc: None,
        }
    }
}

impl<S: Copy> Gemm<S> {
    /// Sets [`Gemm::transa`].
    #[must_use]
    pub fn transa(mut self, t: Transpose) -> Self {
        self.transa = t;
        self
    }
    /// Sets [`Gemm::transb`].
    #[must_use]
    pub fn transb(mut self, t: Transpose) -> Self {
        self.transb = t;
        self
    }
    /// Sets [`Gemm::alpha`].
    #[must_use]
    pub fn alpha(mut self, alpha: S) -> Self {
        self.alpha = alpha;
        self
    }
    /// Sets [`Gemm::beta`].
    #[must_use]
    pub fn beta(mut self, beta: S) -> Self {
        self.beta = beta;
        self
    }
    /// Sets [`Gemm::lda`].
    #[must_use]
    pub fn lda(mut self, ld: usize) -> Self {
        self.lda = Some(ld);
        self
    }
    /// Sets [`Gemm::ldb`].
    #[must_use]
    pub fn ldb(mut self, ld: usize) -> Self {
        self.ldb = Some(ld);
        self
    }
    /// Sets [`Gemm::ldc`].
    #[must_use]
    pub fn ldc(mut self, ld: usize) -> Self {
        self.ldc = Some(ld);
        self
    }

    /// A's storage, `(rows, cols)`: `(m, k)`, or `(k, m)` when transposed.
    pub fn a_shape(&self) -> (usize, usize) {
        if self.transa.is_transposed() {
            (self.k, self.m)
        } else {
            (self.m, self.k)
        }
    }
    /// B's storage, `(rows, cols)`: `(k, n)`, or `(n, k)` when transposed.
    pub fn b_shape(&self) -> (usize, usize) {
        if self.transb.is_transposed() {
            (self.n, self.k)
        } else {
            (self.k, self.n)
        }
    }
    /// C's storage, `(rows, cols)`: `(m, n)`.
    pub fn c_shape(&self) -> (usize, usize) {
        (self.m, self.n)
    }
    /// The leading dimensions of A, B and C that a call uses: the ones set, else the tight
    /// ones (the rows of the storage, at least 1).
    pub fn leading_dimensions(&self) -> [usize; 3] {
        let tight = |(rows, _): (usize, usize)| rows.max(1);
        [
            self.lda.unwrap_or_else(|| tight(self.a_shape())),
            self.ldb.unwrap_or_else(|| tight(self.b_shape())),
            self.ldc.unwrap_or_else(|| tight(self.c_shape())),
        ]
    }
    /// The fewest elements A, B and C need (`ld * (cols - 1) + rows`, 0 for an empty matrix);
    /// `None` when that overflows `usize`.
    pub fn min_lens(&self) -> Option<[usize; 3]> {
        let [a, b, c] = self.layouts(&StridedBatch::single()).ok()?;
        Some([a.span(1)?, b.span(1)?, c.span(1)?])
    }

    /// The three operands' layouts with the strides of `batch` (tight where unset).
    fn layouts(&self, batch: &StridedBatch) -> std::result::Result<[Layout; 3], &'static str> {
        let [lda, ldb, ldc] = self.leading_dimensions();
        let strides = [batch.stride_a, batch.stride_b, batch.stride_c];
        let mut out = [Layout::default(); 3];
        for (i, ((rows, cols), ld)) in [self.a_shape(), self.b_shape(), self.c_shape()]
            .into_iter()
            .zip([lda, ldb, ldc])
            .enumerate()
        {
            let stride = match strides[i] {
                Some(s) => s,
                None => ld
                    .checked_mul(cols)
                    .ok_or("the tight batch stride (ld * cols) overflows usize")?,
            };
            out[i] = Layout {
                rows,
                cols,
                ld,
                stride,
            };
        }
        Ok(out)
    }
}

/// The batch of a strided-batched GEMM: `count` GEMMs, matrix `i` of each operand starting
/// `i * stride` elements after matrix 0 (cuBLAS's `strideA`, `strideB`, `strideC`).
///
/// A stride left `None` is the tight one: `ld * cols` of that operand, matrices one after
/// another. A stride of 0 for A or B uses the same matrix in every GEMM; C's matrices must not
/// overlap.
///
/// ```
/// use anycuda::core::{Gemm, StridedBatch};
/// let g = Gemm::<f32>::new(4, 3, 2);
/// let batch = StridedBatch::new(10).stride_b(0); // one B for all ten
/// assert_eq!(batch.strides(&g), Some([8, 0, 12]));
/// assert_eq!(batch.min_lens(&g), Some([80, 6, 120]));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct StridedBatch {
    /// How many GEMMs (cuBLAS's `batchCount`); 0 does nothing.
    pub count: usize,
    /// Elements from one A to the next; `None`: tight.
    pub stride_a: Option<usize>,
    /// Elements from one B to the next; `None`: tight.
    pub stride_b: Option<usize>,
    /// Elements from one C to the next; `None`: tight.
    pub stride_c: Option<usize>,
}

impl StridedBatch {
    /// `count` GEMMs with tight strides.
    pub fn new(count: usize) -> Self {
        StridedBatch {
            count,
            ..Default::default()
        }
    }
    /// One GEMM, strides 0: what a plain GEMM is as a batch (no tight stride to compute).
    fn single() -> Self {
        StridedBatch::new(1).stride_a(0).stride_b(0).stride_c(0)
    }
    /// Sets [`StridedBatch::stride_a`].
    #[must_use]
    pub fn stride_a(mut self, stride: usize) -> Self {
        self.stride_a = Some(stride);
        self
    }
    /// Sets [`StridedBatch::stride_b`].
    #[must_use]
    pub fn stride_b(mut self, stride: usize) -> Self {
        self.stride_b = Some(stride);
        self
    }
    /// Sets [`StridedBatch::stride_c`].
    #[must_use]
    pub fn stride_c(mut self, stride: usize) -> Self {
        self.stride_c = Some(stride);
        self
    }
    /// The strides of A, B and C a call with `gemm` uses; `None` when a tight one overflows.
    pub fn strides<S: Copy>(&self, gemm: &Gemm<S>) -> Option<[usize; 3]> {
        let l = gemm.layouts(self).ok()?;
        Some([l[0].stride, l[1].stride, l[2].stride])
    }
    /// The fewest elements A, B and C need for the whole batch (the last matrix's extent
    /// included); `None` when that overflows `usize`.
    pub fn min_lens<S: Copy>(&self, gemm: &Gemm<S>) -> Option<[usize; 3]> {
        let [a, b, c] = gemm.layouts(self).ok()?;
        Some([
            a.span(self.count)?,
            b.span(self.count)?,
            c.span(self.count)?,
        ])
    }
}

/// One operand's storage: rows and columns, leading dimension, batch stride (elements).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Layout {
    rows: usize,
    cols: usize,
    ld: usize,
    stride: usize,
}

impl Layout {
    /// Elements one matrix spans from its first: `ld * (cols - 1) + rows`, 0 when empty.
    fn extent(&self) -> Option<usize> {
        if self.rows == 0 || self.cols == 0 {
            return Some(0);
        }
        self.ld.checked_mul(self.cols - 1)?.checked_add(self.rows)
    }
    /// Elements `count` matrices span: `(count - 1) * stride + extent`, 0 when empty.
    fn span(&self, count: usize) -> Option<usize> {
        let e = self.extent()?;
        if e == 0 || count == 0 {
            return Some(0);
        }
        self.stride.checked_mul(count - 1)?.checked_add(e)
    }
}

/// GEMM's arguments in cuBLAS's types, after the checks. Public only because [`GemmType`]'s
/// hidden methods take it.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct RawGemm<S> {
    /// `transa`.
    pub transa: cublasOperation_t,
    /// `transb`.
    pub transb: cublasOperation_t,
    /// `m`.
    pub m: c_int,
    /// `n`.
    pub n: c_int,
    /// `k`.
    pub k: c_int,
    /// `alpha`.
    pub alpha: S,
    /// `beta`.
    pub beta: S,
    /// `lda`.
    pub lda: c_int,
    /// `ldb`.
    pub ldb: c_int,
    /// `ldc`.
    pub ldc: c_int,
    /// `strideA`.
    pub stride_a: c_longlong,
    /// `strideB`.
    pub stride_b: c_longlong,
    /// `strideC`.
    pub stride_c: c_longlong,
    /// `batchCount`.
    pub batch: c_int,
}

/// A checked call: the raw arguments, and whether there is anything to compute.
#[derive(Debug)]
struct Plan<S> {
    raw: RawGemm<S>,
    /// `m`, `n` or the batch count is 0: cuBLAS would return at once; nothing is queued.
    empty: bool,
}

/// An operand as the checks see it: its device address and its length in elements.
type Extent = (u64, usize);

/// `v` as a C `int`, or a usage error naming `what`.
fn int(op: &'static str, what: &str, v: usize) -> Result<c_int> {
    c_int::try_from(v).map_err(|_| {
        CoreError::usage(
            op,
            format!(
                "{what} = {v} does not fit cuBLAS's 32-bit int (at most {}): this layer calls \
                 the 32-bit entry points; use anycuda::cublas's _64 functions for larger sizes",
                c_int::MAX
            ),
        )
    })
}

/// Whether the byte ranges of `n` elements of `elem` bytes at `a` and `m` at `b` share a byte.
fn overlap(a: u64, n: usize, b: u64, m: usize, elem: usize) -> bool {
    if n == 0 || m == 0 {
        return false;
    }
    // Device addresses plus in-bounds extents never overflow u128.
    let (a, b) = (u128::from(a), u128::from(b));
    let (an, bm) = ((n as u128) * elem as u128, (m as u128) * elem as u128);
    a < b + bm && b < a + an
}

/// Checks a GEMM (a strided batch when `batch` is given) against its operands, A, B and C as
/// `(address, length)` of elements of `elem` bytes, and gives the raw arguments.
///
/// # Errors
/// A usage error naming what does not fit: see the module's documentation.
fn plan<S: Copy>(
    op: &'static str,
    g: &Gemm<S>,
    batch: Option<&StridedBatch>,
    [a, b, c]: [Extent; 3],
    elem: usize,
) -> Result<Plan<S>> {
    let one = StridedBatch::single();
    let batch = batch.unwrap_or(&one);
    let count = batch.count;
    let layouts = g.layouts(batch).map_err(|why| CoreError::usage(op, why))?;
    let (m, n, k) = (int(op, "m", g.m)?, int(op, "n", g.n)?, int(op, "k", g.k)?);
    let names = ["A", "B", "C"];
    let lds = ["lda", "ldb", "ldc"];
    let strides = ["stride_a", "stride_b", "stride_c"];
    let mut spans = [0usize; 3];
    for (i, l) in layouts.iter().enumerate() {
        if l.ld < l.rows.max(1) {
            return Err(CoreError::usage(
                op,
                format!(
                    "{} = {} is less than the {} rows of {}'s storage ({} x {}{}): cuBLAS \
                     needs {} >= max(1, rows)",
                    lds[i],
                    l.ld,
                    l.rows,
                    names[i],
                    l.rows,
                    l.cols,
                    match i {
                        0 if g.transa.is_transposed() => ", transposed",
                        1 if g.transb.is_transposed() => ", transposed",
                        _ => "",
                    },
                    lds[i]
                ),
            ));
        }
        spans[i] = l.span(count).ok_or_else(|| {
            CoreError::usage(
                op,
                format!(
                    "{}'s extent overflows usize ({} = {}, {} columns, {} = {}, {count} matrices)",
                    names[i], lds[i], l.ld, l.cols, strides[i], l.stride
                ),
            )
        })?;
    }
    let (lda, ldb, ldc) = (
        int(op, "lda", layouts[0].ld)?,
        int(op, "ldb", layouts[1].ld)?,
        int(op, "ldc", layouts[2].ld)?,
    );
    let batch_count = int(op, "the batch count", count)?;
    let mut raw_strides = [0 as c_longlong; 3];
    for (i, l) in layouts.iter().enumerate() {
        raw_strides[i] = c_longlong::try_from(l.stride).map_err(|_| {
            CoreError::usage(
                op,
                format!(
                    "{} = {} does not fit cuBLAS's 64-bit long long",
                    strides[i], l.stride
                ),
            )
        })?;
    }
    for (i, (_, len)) in [a, b, c].into_iter().enumerate() {
        if spans[i] > len {
            let l = &layouts[i];
            return Err(CoreError::usage(
                op,
                format!(
                    "{} needs {} elements ({} x {} with {} = {}{}), its buffer has {len}: \
                     cuBLAS would {} past its end",
                    names[i],
                    spans[i],
                    l.rows,
                    l.cols,
                    lds[i],
                    l.ld,
                    if count > 1 {
                        format!(", {count} matrices {} = {} apart", strides[i], l.stride)
                    } else {
                        String::new()
                    },
                    if i == 2 { "write" } else { "read" },
                ),
            ));
        }
    }
    // C's matrices must not overlap one another. Two layouts are certainly disjoint: whole
    // matrices one after another (stride >= extent), or interleaved within each column
    // (stride >= rows, and the last matrix's column still inside the first's leading
    // dimension). Anything else is refused rather than searched.
    let lc = &layouts[2];
    let c_extent = lc.extent().unwrap_or(usize::MAX);
    if count > 1 && c_extent > 0 && lc.stride < c_extent {
        let interleaved = lc.stride >= lc.rows
            && lc
                .stride
                .checked_mul(count - 1)
                .and_then(|s| s.checked_add(lc.rows))
                .is_some_and(|end| end <= lc.ld);
        if !interleaved {
            return Err(CoreError::usage(
                op,
                format!(
                    "stride_c = {} makes C's {count} matrices ({} x {}, ldc = {}) overlap: \
                     cuBLAS computes them concurrently, so the result would be undefined; \
                     use stride_c >= {c_extent}",
                    lc.stride, lc.rows, lc.cols, lc.ld
                ),
            ));
        }
    }
    // C must not share an element with A or B: cuBLAS would read what it is writing.
    for (i, (addr, _)) in [a, b].into_iter().enumerate() {
        if overlap(addr, spans[i], c.0, spans[2], elem) {
            return Err(CoreError::usage(
                op,
                format!(
                    "C overlaps {}: the output must not share memory with an input",
                    names[i]
                ),
            ));
        }
    }
    Ok(Plan {
        raw: RawGemm {
            transa: g.transa.as_raw(),
            transb: g.transb.as_raw(),
            m,
            n,
            k,
            alpha: g.alpha,
            beta: g.beta,
            lda,
            ldb,
            ldc,
            stride_a: raw_strides[0],
            stride_b: raw_strides[1],
            stride_c: raw_strides[2],
            batch: batch_count,
        },
        empty: m == 0 || n == 0 || batch_count == 0,
    })
}

/// An element type cuBLAS multiplies: `f32` (`cublasSgemm`), `f64` (`cublasDgemm`) and, with
/// the `half` feature, `half::f16` and `half::bf16` (`cublasGemmEx` with
/// `CUBLAS_COMPUTE_32F`: products accumulated in `f32`, `f32` scalars). Sealed.
///
/// Generic code over it:
/// ```no_run
/// use anycuda::core::{Blas, Buffer, Gemm, GemmType, Result};
/// fn square<T: GemmType>(blas: &Blas, n: usize, a: &Buffer<T>, c: &mut Buffer<T>) -> Result<()> {
///     blas.gemm(&Gemm::new(n, n, n), a, a, c)
/// }
/// ```
pub trait GemmType: DeviceCopy + sealed::Sealed {
    /// The type of `alpha` and `beta`.
    type Scalar: BlasScalar;
    /// The GEMM's cuBLAS call.
    const GEMM: &'static str;
    /// The strided-batched GEMM's cuBLAS call.
    const GEMM_STRIDED_BATCHED: &'static str;

    /// Queues the GEMM.
    ///
    /// # Safety
    /// `h` is a live handle whose context is current, in host pointer mode; `a`, `b` and `c`
    /// hold what `p` reaches, and `c` overlaps neither.
    #[doc(hidden)]
    unsafe fn gemm(
        h: cublasHandle_t,
        p: &RawGemm<Self::Scalar>,
        a: *const Self,
        b: *const Self,
        c: *mut Self,
    ) -> cublasStatus_t;

    /// Queues the strided-batched GEMM.
    ///
    /// # Safety
    /// As [`GemmType::gemm`], for the whole batch.
    #[doc(hidden)]
    unsafe fn gemm_strided_batched(
        h: cublasHandle_t,
        p: &RawGemm<Self::Scalar>,
        a: *const Self,
        b: *const Self,
        c: *mut Self,
    ) -> cublasStatus_t;
}

/// `GemmType` for a type with its own cuBLAS GEMMs (`f32`: S, `f64`: D).
macro_rules! typed_gemm {
    ($t:ty, $gemm:ident, $batched:ident) => {
        impl GemmType for $t {
            type Scalar = $t;
            const GEMM: &'static str = stringify!($gemm);
            const GEMM_STRIDED_BATCHED: &'static str = stringify!($batched);
            #[inline]
            unsafe fn gemm(
                h: cublasHandle_t,
                p: &RawGemm<$t>,
                a: *const $t,
                b: *const $t,
                c: *mut $t,
            ) -> cublasStatus_t {
                // SAFETY: the caller's contract; the scalars are host values (pointer mode
                // host) that live across the call.
                unsafe {
                    raw::$gemm(
                        h, p.transa, p.transb, p.m, p.n, p.k, &p.alpha, a, p.lda, b, p.ldb,
                        &p.beta, c, p.ldc,
                    )
                }
            }
            #[inline]
            unsafe fn gemm_strided_batched(
                h: cublasHandle_t,
                p: &RawGemm<$t>,
                a: *const $t,
                b: *const $t,
                c: *mut $t,
            ) -> cublasStatus_t {
                // SAFETY: as in `gemm`, for the whole batch.
                unsafe {
                    raw::$batched(
                        h, p.transa, p.transb, p.m, p.n, p.k, &p.alpha, a, p.lda, p.stride_a, b,
                        p.ldb, p.stride_b, &p.beta, c, p.ldc, p.stride_c, p.batch,
                    )
                }
            }
        }
    };
}
typed_gemm!(f32, cublasSgemm_v2, cublasSgemmStridedBatched);
typed_gemm!(f64, cublasDgemm_v2, cublasDgemmStridedBatched);

/// `GemmType` for a 16-bit type through `cublasGemmEx` / `cublasGemmStridedBatchedEx`, with
/// `f32` accumulation (`CUBLAS_COMPUTE_32F`, whose scalars are `f32`) and the default
/// algorithm.
#[cfg(feature = "half")]
macro_rules! ex_gemm {
    ($t:ty, $data:ident) => {
        impl GemmType for $t {
            type Scalar = f32;
            const GEMM: &'static str = "cublasGemmEx";
            const GEMM_STRIDED_BATCHED: &'static str = "cublasGemmStridedBatchedEx";
            #[inline]
            unsafe fn gemm(
                h: cublasHandle_t,
                p: &RawGemm<f32>,
                a: *const $t,
                b: *const $t,
                c: *mut $t,
            ) -> cublasStatus_t {
                use raw::{cublasComputeType_t as Ct, cublasGemmAlgo_t as Algo, cudaDataType};
                let ty = cudaDataType::$data;
                // SAFETY: the caller's contract; the data type matches `$t`, and COMPUTE_32F
                // reads `f32` scalars, which live across the call.
                unsafe {
                    raw::cublasGemmEx(
                        h,
                        p.transa,
                        p.transb,
                        p.m,
                        p.n,
                        p.k,
                        (&p.alpha as *const f32).cast(),
                        a.cast(),
                        ty,
                        p.lda,
                        b.cast(),
                        ty,
                        p.ldb,
                        (&p.beta as *const f32).cast(),
                        c.cast(),
                        ty,
                        p.ldc,
                        Ct::CUBLAS_COMPUTE_32F,
                        Algo::CUBLAS_GEMM_DEFAULT,
                    )
                }
            }
            #[inline]
            unsafe fn gemm_strided_batched(
                h: cublasHandle_t,
                p: &RawGemm<f32>,
                a: *const $t,
                b: *const $t,
                c: *mut $t,
            ) -> cublasStatus_t {
                use raw::{cublasComputeType_t as Ct, cublasGemmAlgo_t as Algo, cudaDataType};
                let ty = cudaDataType::$data;
                // SAFETY: as in `gemm`, for the whole batch.
                unsafe {
                    raw::cublasGemmStridedBatchedEx(
                        h,
                        p.transa,
                        p.transb,
                        p.m,
                        p.n,
                        p.k,
                        (&p.alpha as *const f32).cast(),
                        a.cast(),
                        ty,
                        p.lda,
                        p.stride_a,
                        b.cast(),
                        ty,
                        p.ldb,
                        p.stride_b,
                        (&p.beta as *const f32).cast(),
                        c.cast(),
                        ty,
                        p.ldc,
                        p.stride_c,
                        p.batch,
                        Ct::CUBLAS_COMPUTE_32F,
                        Algo::CUBLAS_GEMM_DEFAULT,
                    )
                }
            }
        }
    };
}
#[cfg(feature = "half")]
ex_gemm!(half::f16, CUDA_R_16F);
#[cfg(feature = "half")]
ex_gemm!(half::bf16, CUDA_R_16BF);

/// The owned `cublasHandle_t`, destroyed when the last holder drops: the [`Blas`], or a graph
/// (or capture in progress) whose captured GEMMs were queued through it.
struct Handle {
    raw: cublasHandle_t,
    /// Keeps the context alive until the handle is destroyed.
    ctx: Context,
}

// SAFETY: an opaque handle usable from any thread while its context is current (every call
// binds it first). Calls go only through `Blas`, which is not `Sync`; a graph's or a capture's
// clone is only held and dropped, never called through.
unsafe impl Send for Handle {}
// SAFETY: as above: no call is made through a shared `Handle` except its destruction, once.
unsafe impl Sync for Handle {}

impl Drop for Handle {
    fn drop(&mut self) {
        if let Err(e) = self.ctx.bind() {
            log::warn!("anycuda::core: binding the context to destroy a Blas handle: {e}");
        }
        // SAFETY: the handle is live and owned here (the last holder); destroyed once.
        let r = unsafe { raw::cublasDestroy_v2(self.raw) };
        if let Err(e) = check("cublasDestroy_v2", r) {
            log::warn!("anycuda::core: {e}");
        }
    }
}

/// A BLAS handle (`cublasHandle_t`) bound to a [`Stream`]: every operation is queued on that
/// stream. cuBLAS on the CUDA backend, hipBLAS on the HIP backend. Column-major, as cuBLAS.
///
/// Created in host pointer mode (`alpha` and `beta` are host values). The handle is destroyed
/// on drop, or when the last graph that captured one of its GEMMs drops. `Send` but not
/// `Sync`: cuBLAS forbids using one handle from two threads at once, and operations take
/// `&self`.
///
/// ```compile_fail
/// fn shared_between_threads<T: Sync>() {}
/// shared_between_threads::<anycuda::core::Blas>(); // a handle is not Sync
/// ```
/// ```
/// fn moved_to_a_thread<T: Send>() {}
/// moved_to_a_thread::<anycuda::core::Blas>();
/// ```
pub struct Blas {
    handle: Arc<Handle>,
    stream: Stream,
    /// Not `Sync` (see above); `Send` stays.
    _not_sync: PhantomData<Cell<()>>,
}

impl fmt::Debug for Blas {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Blas")
            .field("raw", &self.handle.raw)
            .field("stream", &self.stream)
            .finish()
    }
}

impl Blas {
    /// A handle on `stream` (`cublasCreate_v2`, `cublasSetStream_v2`), in host pointer mode
    /// (`cublasSetPointerMode_v2`).
    ///
    /// # Errors
    /// cuBLAS's error: `CUBLAS_STATUS_NOT_INITIALIZED` without a GPU,
    /// `CUBLAS_STATUS_NOT_SUPPORTED` when no BLAS library loads
    /// (`anycuda::cublas::not_supported_reason` says why); the driver's error when the stream's
    /// context cannot be made current.
    pub fn new(stream: &Stream) -> Result<Blas> {
        stream.context().bind()?;
        let mut h: cublasHandle_t = std::ptr::null_mut();
        // SAFETY: a valid out-pointer; the stream's context is current, so the handle belongs
        // to its device.
        check("cublasCreate_v2", unsafe { raw::cublasCreate_v2(&mut h) })?;
        if h.is_null() {
            return Err(CoreError::cublas(
                "cublasCreate_v2",
                cublasStatus_t::CUBLAS_STATUS_INTERNAL_ERROR,
            )
            .with_detail("the library reported success but returned no handle"));
        }
        // From here on, dropping `blas` destroys the handle on every error path.
        let mut blas = Blas {
            handle: Arc::new(Handle {
                raw: h,
                ctx: stream.context().clone(),
            }),
            stream: stream.clone(),
            _not_sync: PhantomData,
        };
        blas.attach(stream)?;
        // SAFETY: a live handle whose context is current.
        check("cublasSetPointerMode_v2", unsafe {
            raw::cublasSetPointerMode_v2(h, cublasPointerMode_t::CUBLAS_POINTER_MODE_HOST)
        })?;
        Ok(blas)
    }

    /// `cublasSetStream_v2` to `stream` (whose context is made current).
    fn attach(&mut self, stream: &Stream) -> Result<()> {
        stream.context().bind()?;
        // SAFETY: a live handle of this context; the stream is alive (held by `self` once this
        // returns) and the handle types are the same driver stream.
        check("cublasSetStream_v2", unsafe {
            raw::cublasSetStream_v2(self.handle.raw, stream.as_raw().cast())
        })
    }

    /// The raw handle, for the raw layer ([`crate::cublas`]). It stays owned by `self`; keep
    /// its pointer mode and stream as this type set them, or set them back before the next
    /// safe call.
    pub fn as_raw(&self) -> cublasHandle_t {
        self.handle.raw
    }

    /// The stream every operation is queued on.
    pub fn stream(&self) -> &Stream {
        &self.stream
    }

    /// Queues later operations on `stream` instead. Work already queued on the old stream is
    /// not ordered before them by this call: make `stream` wait for the old one where it
    /// matters ([`Stream::wait`]).
    ///
    /// # Errors
    /// A usage error for a stream of another context (the handle belongs to its own);
    /// cuBLAS's error.
    pub fn set_stream(&mut self, stream: &Stream) -> Result<()> {
        if stream.context() != self.stream.context() {
            return Err(CoreError::usage(
                "Blas::set_stream",
                "the stream belongs to another context than the handle",
            ));
        }
        self.attach(stream)?;
        self.stream = stream.clone();
        Ok(())
    }

    /// `C = alpha * op(A) * op(B) + beta * C` on [`Blas::stream`], column-major
    /// (`cublasSgemm`, `cublasDgemm`, or `cublasGemmEx` for `f16`/`bf16`): `op(A)` is
    /// `m x k`, `op(B)` `k x n`, `C` `m x n`, each stored with its leading dimension.
    ///
    /// ```no_run
    /// use anycuda::core::{Blas, Device, Gemm};
    /// let s = Device::new(0)?.create_stream(Default::default())?;
    /// // 2 x 2 matrices in column-major order: A = [1 3; 2 4], B = I.
    /// let a = s.clone_from_host(&[1.0f64, 2.0, 3.0, 4.0])?;
    /// let b = s.clone_from_host(&[1.0f64, 0.0, 0.0, 1.0])?;
    /// let mut c = s.alloc_zeros::<f64>(4)?;
    /// Blas::new(&s)?.gemm(&Gemm::new(2, 2, 2).alpha(2.0), &a, &b, &mut c)?;
    /// assert_eq!(c.to_vec()?, [2.0, 4.0, 6.0, 8.0]);
    /// # Ok::<(), anycuda::core::CoreError>(())
    /// ```
    ///
    /// # Errors
    /// A usage error, before cuBLAS sees the call, for a size, leading dimension or buffer
    /// that does not fit (see the [module documentation](self)), a C that overlaps A or B, or
    /// a buffer of another context; cuBLAS's error.
    pub fn gemm<T: GemmType>(
        &self,
        gemm: &Gemm<T::Scalar>,
        a: &impl DeviceSlice<T>,
        b: &impl DeviceSlice<T>,
        c: &mut impl DeviceSliceMut<T>,
    ) -> Result<()> {
        let (a, b, mut c) = (a.as_view(), b.as_view(), c.as_view_mut());
        let p = plan(T::GEMM, gemm, None, extents(&a, &b, &c), size_of::<T>())?;
        self.queue(T::GEMM, &a, &b, &mut c, &p, |h, pa, pb, pc| {
            // SAFETY: a live handle in host pointer mode whose context is current (`queue`
            // binds it); the checks above keep every access inside the three views, and C
            // overlaps neither input.
            unsafe { T::gemm(h, &p.raw, pa, pb, pc) }
        })
    }

    /// `batch.count` GEMMs at once (`cublasSgemmStridedBatched`, `cublasDgemmStridedBatched`,
    /// `cublasGemmStridedBatchedEx`): GEMM `i` multiplies the matrices that start
    /// `i * stride` elements into A and B and writes the one as far into C.
    ///
    /// ```no_run
    /// use anycuda::core::{Blas, Device, Gemm, StridedBatch};
    /// let s = Device::new(0)?.create_stream(Default::default())?;
    /// let (n, count) = (8, 100);
    /// let a = s.clone_from_host(&vec![1.0f32; n * n * count])?;
    /// let b = s.clone_from_host(&vec![1.0f32; n * n])?; // one B for every GEMM
    /// let mut c = s.alloc_zeros::<f32>(n * n * count)?;
    /// let batch = StridedBatch::new(count).stride_b(0);
    /// Blas::new(&s)?.gemm_strided_batched(&Gemm::new(n, n, n), &batch, &a, &b, &mut c)?;
    /// # Ok::<(), anycuda::core::CoreError>(())
    /// ```
    ///
    /// # Errors
    /// As [`Blas::gemm`], for every matrix of the batch (the last one's extent must fit), and
    /// a usage error when C's matrices overlap one another.
    pub fn gemm_strided_batched<T: GemmType>(
        &self,
        gemm: &Gemm<T::Scalar>,
        batch: &StridedBatch,
        a: &impl DeviceSlice<T>,
        b: &impl DeviceSlice<T>,
        c: &mut impl DeviceSliceMut<T>,
    ) -> Result<()> {
        let call = T::GEMM_STRIDED_BATCHED;
        let (a, b, mut c) = (a.as_view(), b.as_view(), c.as_view_mut());
        let p = plan(call, gemm, Some(batch), extents(&a, &b, &c), size_of::<T>())?;
        self.queue(call, &a, &b, &mut c, &p, |h, pa, pb, pc| {
            // SAFETY: as in `gemm`, for every matrix of the batch.
            unsafe { T::gemm_strided_batched(h, &p.raw, pa, pb, pc) }
        })
    }

    /// Checks the buffers' context, makes it current, holds the capture state over `call`
    /// (given the handle and the three device pointers) and records the uses on the stream.
    fn queue<T: DeviceCopy, S>(
        &self,
        op: &'static str,
        a: &BufferView<'_, T>,
        b: &BufferView<'_, T>,
        c: &mut BufferViewMut<'_, T>,
        p: &Plan<S>,
        call: impl FnOnce(cublasHandle_t, *const T, *const T, *mut T) -> cublasStatus_t,
    ) -> Result<()> {
        let ctx = self.stream.context();
        if a.context() != ctx || b.context() != ctx || c.context() != ctx {
            return Err(CoreError::usage(
                op,
                "a buffer belongs to another context (device) than the handle",
            ));
        }
        if p.empty {
            return Ok(());
        }
        ctx.bind()?;
        let cap = track::capture_state(&self.stream)?;
        let r = check(
            op,
            call(
                self.handle.raw,
                a.as_raw() as usize as *const T,
                b.as_raw() as usize as *const T,
                c.as_raw() as usize as *mut T,
            ),
        );
        // Recorded whatever cuBLAS answered: a failed call may still have queued work.
        if let Some(id) = cap.id {
            // The graph's kernels may use the handle's resources: it lives as long as they.
            track::keep_for_capture(id, self.handle.clone());
        }
        let uses = [
            a.arc().used_on(&self.stream, cap.id),
            b.arc().used_on(&self.stream, cap.id),
            c.arc().used_on(&self.stream, cap.id),
        ];
        r?;
        uses.into_iter().collect()
    }
}

/// A, B and C as the checks see them.
fn extents<T: DeviceCopy>(
    a: &BufferView<'_, T>,
    b: &BufferView<'_, T>,
    c: &BufferViewMut<'_, T>,
) -> [Extent; 3] {
    [
        (a.as_raw(), a.len()),
        (b.as_raw(), b.len()),
        (c.as_raw(), c.len()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::ErrorCode;

    /// Three disjoint buffers of `lens` f32 elements at made-up addresses (no GPU needed:
    /// the checks run before any library call).
    fn at(lens: [usize; 3]) -> [Extent; 3] {
        [
            (0x1_0000_0000, lens[0]),
            (0x2_0000_0000, lens[1]),
            (0x3_0000_0000, lens[2]),
        ]
    }

    fn refused(r: Result<Plan<f32>>, needle: &str) {
        let e = r.expect_err("refused");
        assert_eq!(e.code(), ErrorCode::Usage, "{e}");
        assert_eq!(e.call(), "cublasSgemm_v2");
        let d = e.detail().unwrap_or_default();
        assert!(d.contains(needle), "{needle:?} not in {d:?}");
    }

    const OP: &str = "cublasSgemm_v2";

    #[test]
    fn tight_leading_dimensions_follow_the_transposes() {
        let g = Gemm::<f32>::new(5, 3, 4);
        assert_eq!(g.leading_dimensions(), [5, 4, 5]);
        assert_eq!(g.min_lens(), Some([20, 12, 15]));
        let t = g
            .transa(Transpose::Transpose)
            .transb(Transpose::ConjugateTranspose);
        assert_eq!((t.a_shape(), t.b_shape()), ((4, 5), (3, 4)));
        assert_eq!(t.leading_dimensions(), [4, 3, 5]);
        assert_eq!(t.min_lens(), Some([20, 12, 15]));
        // Empty dimensions: leading dimensions are still at least 1, extents 0.
        let e = Gemm::<f64>::new(0, 3, 0);
        assert_eq!(e.leading_dimensions(), [1, 1, 1]);
        assert_eq!(e.min_lens(), Some([0, 0, 0]));
        assert_eq!(
            Transpose::default().as_raw(),
            cublasOperation_t::CUBLAS_OP_N
        );
        assert_eq!(
            Transpose::ConjugateTranspose.as_raw(),
            cublasOperation_t::CUBLAS_OP_C
        );
    }

    #[test]
    fn a_fitting_call_gives_cublas_its_arguments() {
        let g = Gemm::<f32>::new(5, 3, 4)
            .transa(Transpose::Transpose)
            .lda(6)
            .ldc(7)
            .alpha(2.0)
            .beta(-1.0);
        // A: 4 x 5 with lda 6: 6 * 4 + 4 = 28 elements; C: 5 x 3 with ldc 7: 7 * 2 + 5 = 19.
        let p = plan(OP, &g, None, at([28, 12, 19]), 4).unwrap();
        let r = p.raw;
        assert_eq!((r.m, r.n, r.k, r.lda, r.ldb, r.ldc), (5, 3, 4, 6, 4, 7));
        assert_eq!(
            (r.transa, r.transb),
            (
                cublasOperation_t::CUBLAS_OP_T,
                cublasOperation_t::CUBLAS_OP_N
            )
        );
        assert_eq!((r.alpha, r.beta, r.batch), (2.0, -1.0, 1));
        assert!(!p.empty);
        // One element short, in each operand: refused.
        refused(
            plan(OP, &g, None, at([27, 12, 19]), 4),
            "A needs 28 elements",
        );
        refused(
            plan(OP, &g, None, at([28, 11, 19]), 4),
            "B needs 12 elements",
        );
        refused(
            plan(OP, &g, None, at([28, 12, 18]), 4),
            "cuBLAS would write past",
        );
        // Longer buffers are fine.
        plan(OP, &g, None, at([1000, 1000, 1000]), 4).unwrap();
    }

    #[test]
    fn leading_dimensions_below_the_rows_are_refused() {
        let g = Gemm::<f32>::new(5, 3, 4);
        refused(
            plan(OP, &g.lda(4), None, at([99; 3]), 4),
            "lda = 4 is less than the 5 rows",
        );
        refused(plan(OP, &g.ldb(3), None, at([99; 3]), 4), "ldb = 3");
        refused(plan(OP, &g.ldc(0), None, at([99; 3]), 4), "ldc = 0");
        // Transposed A is stored k x m: lda 4 is enough, 3 is not.
        let t = g.transa(Transpose::Transpose);
        plan(OP, &t.lda(4), None, at([99; 3]), 4).unwrap();
        refused(plan(OP, &t.lda(3), None, at([99; 3]), 4), "transposed");
        // An empty matrix still needs ld >= 1 (cuBLAS's rule).
        refused(
            plan(OP, &Gemm::<f32>::new(0, 0, 0).lda(0), None, at([0; 3]), 4),
            "max(1, rows)",
        );
    }

    #[test]
    fn sizes_past_cublas_int_are_refused_not_truncated() {
        let big = c_int::MAX as usize + 1;
        refused(
            plan(
                OP,
                &Gemm::<f32>::new(big, 1, 1),
                None,
                at([usize::MAX; 3]),
                4,
            ),
            "m = ",
        );
        refused(
            plan(
                OP,
                &Gemm::<f32>::new(1, big, 1),
                None,
                at([usize::MAX; 3]),
                4,
            ),
            "n = ",
        );
        refused(
            plan(
                OP,
                &Gemm::<f32>::new(1, 1, big),
                None,
                at([usize::MAX; 3]),
                4,
            ),
            "k = ",
        );
        refused(
            plan(
                OP,
                &Gemm::<f32>::new(1, 1, 1).ldc(big),
                None,
                at([usize::MAX; 3]),
                4,
            ),
            "ldc = ",
        );
        let batch = StridedBatch::new(big);
        refused(
            plan(
                OP,
                &Gemm::<f32>::new(1, 1, 1),
                Some(&batch),
                at([usize::MAX; 3]),
                4,
            ),
            "the batch count",
        );
    }

    #[test]
    fn overflowing_extents_are_refused() {
        // ld * (cols - 1) overflows usize.
        let g = Gemm::<f32>::new(2, 2, 3).lda(usize::MAX / 2 + 1);
        assert_eq!(g.min_lens(), None);
        refused(
            plan(OP, &g, None, at([usize::MAX; 3]), 4),
            "A's extent overflows",
        );
        // A stride that overflows with the batch count, and one past long long.
        let g = Gemm::<f32>::new(2, 2, 2);
        let b = StridedBatch::new(3).stride_c(usize::MAX / 2);
        assert_eq!(b.min_lens(&g), None);
        refused(
            plan(OP, &g, Some(&b), at([usize::MAX; 3]), 4),
            "C's extent overflows",
        );
        let b = StridedBatch::new(1).stride_a(c_longlong::MAX as usize + 1);
        refused(
            plan(OP, &g, Some(&b), at([usize::MAX; 3]), 4),
            "64-bit long long",
        );
        // The tight stride itself overflowing.
        let g = Gemm::<f32>::new(2, usize::MAX, 2).ldc(usize::MAX / 2);
        assert_eq!(StridedBatch::new(2).strides(&g), None);
    }

    #[test]
    fn the_last_matrix_of_a_batch_must_fit() {
        let g = Gemm::<f32>::new(4, 3, 2);
        let batch = StridedBatch::new(10);
        assert_eq!(batch.strides(&g), Some([8, 6, 12]));
        assert_eq!(batch.min_lens(&g), Some([80, 60, 120]));
        let p = plan(OP, &g, Some(&batch), at([80, 60, 120]), 4).unwrap();
        assert_eq!(
            (p.raw.stride_a, p.raw.stride_b, p.raw.stride_c, p.raw.batch),
            (8, 6, 12, 10)
        );
        refused(
            plan(OP, &g, Some(&batch), at([79, 60, 120]), 4),
            "10 matrices stride_a = 8 apart",
        );
        refused(
            plan(OP, &g, Some(&batch), at([80, 60, 119]), 4),
            "C needs 120",
        );
        // Stride 0 shares one B; padded strides need more.
        let shared = batch.stride_b(0).stride_a(9);
        assert_eq!(shared.min_lens(&g), Some([89, 6, 120]));
        plan(OP, &g, Some(&shared), at([89, 6, 120]), 4).unwrap();
        refused(
            plan(OP, &g, Some(&shared), at([88, 6, 120]), 4),
            "A needs 89",
        );
        // An empty batch queues nothing but is still checked.
        let none = StridedBatch::new(0);
        assert!(plan(OP, &g, Some(&none), at([0; 3]), 4).unwrap().empty);
        refused(plan(OP, &g.ldc(3), Some(&none), at([0; 3]), 4), "ldc = 3");
    }

    #[test]
    fn overlapping_output_matrices_are_refused() {
        let g = Gemm::<f32>::new(4, 3, 2);
        // C matrices 4 x 3, ldc 4: extent 12. Stride 11 overlaps, 12 does not.
        refused(
            plan(
                OP,
                &g,
                Some(&StridedBatch::new(2).stride_c(11)),
                at([99, 99, 99]),
                4,
            ),
            "overlap",
        );
        refused(
            plan(
                OP,
                &g,
                Some(&StridedBatch::new(2).stride_c(0)),
                at([99, 99, 99]),
                4,
            ),
            "overlap",
        );
        plan(
            OP,
            &g,
            Some(&StridedBatch::new(2).stride_c(12)),
            at([99, 99, 99]),
            4,
        )
        .unwrap();
        // A single matrix may use any stride, 0 included.
        plan(
            OP,
            &g,
            Some(&StridedBatch::new(1).stride_c(0)),
            at([99, 99, 99]),
            4,
        )
        .unwrap();
        // Interleaved within columns: 3 matrices of 4 rows side by side in ldc = 12.
        let inter = g.ldc(12);
        let b = StridedBatch::new(3).stride_c(4);
        plan(OP, &inter, Some(&b), at([99, 99, 12 * 2 + 4 + 8]), 4).unwrap();
        refused(
            plan(
                OP,
                &inter,
                Some(&StridedBatch::new(4).stride_c(4)),
                at([99; 3]),
                4,
            ),
            "overlap",
        );
    }

    #[test]
    fn an_output_sharing_memory_with_an_input_is_refused() {
        let g = Gemm::<f32>::new(4, 4, 4); // 16 elements each
        let base = 0x1_0000_0000u64;
        // C starts at A's last element: overlap.
        let ext = [(base, 16), (0x2_0000_0000, 16), (base + 15 * 4, 16)];
        refused(plan(OP, &g, None, ext, 4), "C overlaps A");
        // C right after A: fine. B overlapping C from below: refused.
        let ext = [(base, 16), (0x2_0000_0000, 16), (base + 16 * 4, 16)];
        plan(OP, &g, None, ext, 4).unwrap();
        let ext = [(0x2_0000_0000, 16), (base + 8 * 4, 16), (base + 16 * 4, 16)];
        refused(plan(OP, &g, None, ext, 4), "C overlaps B");
        // A and B may be the same memory (both are only read).
        let ext = [(base, 16), (base, 16), (base + 16 * 4, 16)];
        plan(OP, &g, None, ext, 4).unwrap();
        // An empty C (m = 0) overlaps nothing.
        let ext = [(base, 0), (base, 16), (base, 0)];
        assert!(
            plan(OP, &Gemm::<f32>::new(0, 4, 4), None, ext, 4)
                .unwrap()
                .empty
        );
    }

    #[test]
    fn cublas_errors_keep_the_status() {
        let e = CoreError::cublas(
            "cublasSgemm_v2",
            cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE,
        );
        assert_eq!(
            e.cublas_code(),
            Some(cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE)
        );
        assert_eq!(
            e.code(),
            ErrorCode::Cublas(cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE)
        );
        let text = e.to_string();
        assert!(
            text.starts_with("cublasSgemm_v2 failed: CUBLAS_STATUS_INVALID_VALUE"),
            "{text}"
        );
        assert!(!e.is_not_supported());
        assert_eq!(
            e.clone().into_driver_error().0,
            crate::driver::CUresult::CUDA_ERROR_UNKNOWN
        );
        let ns = CoreError::cublas(
            "cublasCreate_v2",
            cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED,
        );
        assert!(ns.is_not_supported());
        assert_eq!(ns.curand_code(), None);
    }
}
