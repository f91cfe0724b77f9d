//! Compile-fail doctests: the borrow, `Send`/`Sync` and `unsafe` rules the safe layer relies
//! on, each shown to be enforced by the compiler. Compiled only for doctests
//! (`cargo test --doc -p anycuda`).
//!
//! Every snippet fails because of exactly one line, marked `// FAILS`: with that line removed
//! it compiles (checked when the module was written by turning each snippet into `no_run`
//! without the marked line).

/// A buffer cannot be used after it was moved (dropped, or moved into a thread): its memory
/// may already be freed.
///
/// ```compile_fail,E0382
/// use anycuda::core::{Result, Stream};
/// fn f(s: &Stream) -> Result<()> {
///     let b = s.alloc::<u32>(4)?;
///     std::thread::spawn(move || drop(b));
///     let _ = b.len(); // FAILS
///     Ok(())
/// }
/// ```
pub struct UseAfterMove;

/// A host slice of managed memory borrows the buffer: no copy, fill or launch argument can
/// write it while the slice lives.
///
/// ```compile_fail,E0499
/// use anycuda::core::{Buffer, Result, Stream};
/// fn f(b: &mut Buffer<u32>, s: &Stream) -> Result<()> {
///     let h = b.as_host_slice()?;
///     b.fill(1, s)?; // FAILS
///     println!("{}", h[0]);
///     Ok(())
/// }
/// ```
pub struct HostSliceBlocksWrites;

/// A host slice also blocks handing the buffer to a graph node.
///
/// ```compile_fail,E0499
/// use anycuda::core::{Buffer, GraphBuilder, Result};
/// fn f(b: &mut Buffer<u32>, g: &mut GraphBuilder) -> Result<()> {
///     let h = b.as_host_slice()?;
///     g.memset(&[], b, 7u32)?; // FAILS
///     println!("{}", h[0]);
///     Ok(())
/// }
/// ```
pub struct HostSliceBlocksGraphNodes;

/// A pinned buffer's host slice blocks an asynchronous copy into it.
///
/// ```compile_fail,E0502
/// use anycuda::core::{Buffer, PinnedBuffer, Result, Stream};
/// fn f(d: &Buffer<u32>, p: &mut PinnedBuffer<u32>, s: &Stream) -> Result<()> {
///     let h = p.as_slice()?;
///     d.copy_to_pinned(p, s)?; // FAILS
///     println!("{}", h[0]);
///     Ok(())
/// }
/// ```
pub struct PinnedSliceBlocksCopies;

/// A view cannot outlive its buffer.
///
/// ```compile_fail,E0597
/// use anycuda::core::{BufferView, Result, Stream};
/// fn f(s: &Stream) -> Result<()> {
///     let v: BufferView<'_, u32>;
///     {
///         let b = s.alloc::<u32>(4)?;
///         v = b.as_view();
///     }
///     println!("{}", v.len()); // FAILS
///     Ok(())
/// }
/// ```
pub struct ViewOutlivesBuffer;

/// Two mutable views of one buffer cannot coexist (each is the exclusive target of copies).
///
/// ```compile_fail,E0499
/// use anycuda::core::{Buffer, Result, Stream};
/// fn f(b: &mut Buffer<u32>, s: &Stream) -> Result<()> {
///     let mut x = b.view_mut(..2)?;
///     let mut y = b.view_mut(2..)?;
///     x.fill(1, s)?; // FAILS
///     y.fill(2, s)?;
///     Ok(())
/// }
/// ```
pub struct ExclusiveViews;

/// A mutable view blocks shared use of the buffer while it lives.
///
/// ```compile_fail,E0502
/// use anycuda::core::{Buffer, Result, Stream};
/// fn f(b: &mut Buffer<u32>, s: &Stream) -> Result<()> {
///     let mut x = b.view_mut(..)?;
///     let v = b.to_vec()?;
///     x.fill(1, s)?; // FAILS
///     println!("{v:?}");
///     Ok(())
/// }
/// ```
pub struct MutableViewIsExclusive;

/// A view cannot be sent to outlive the stream borrow it carries: the view is tied to its
/// buffer's lifetime, so a thread that may outlive the buffer cannot take it.
///
/// ```compile_fail,E0597
/// use anycuda::core::{Result, Stream};
/// fn f(s: &Stream) -> Result<()> {
///     let b = s.alloc::<u32>(4)?;
///     let v = b.as_view();
///     std::thread::spawn(move || println!("{}", v.len())); // FAILS
///     Ok(())
/// }
/// ```
pub struct ViewsAreBorrowBound;

/// `Program` is not `Sync` (NVRTC/hipRTC programs are not thread-safe).
///
/// ```compile_fail,E0277
/// fn sync<T: Sync>() {}
/// sync::<anycuda::core::Program>(); // FAILS
/// ```
pub struct ProgramNotSync;

/// `Graph` is not `Sync`.
///
/// ```compile_fail,E0277
/// fn sync<T: Sync>() {}
/// sync::<anycuda::core::Graph>(); // FAILS
/// ```
pub struct GraphNotSync;

/// `GraphExec` is not `Sync` (two threads must not launch one executable at once).
///
/// ```compile_fail,E0277
/// fn sync<T: Sync>() {}
/// sync::<anycuda::core::GraphExec>(); // FAILS
/// ```
pub struct GraphExecNotSync;

/// `GraphBuilder` is not `Sync`.
///
/// ```compile_fail,E0277
/// fn sync<T: Sync>() {}
/// sync::<anycuda::core::GraphBuilder>(); // FAILS
/// ```
pub struct GraphBuilderNotSync;

/// A kernel launch is `unsafe`: kernel code is arbitrary.
///
/// ```compile_fail,E0133
/// use anycuda::core::{launch, Kernel, LaunchConfig, Result, Stream};
/// fn f(s: &Stream, k: &Kernel) -> Result<()> {
///     launch(s, &LaunchConfig::new(1u32, 1u32), k, ())?; // FAILS
///     Ok(())
/// }
/// ```
pub struct LaunchIsUnsafe;

/// A kernel node is `unsafe` too.
///
/// ```compile_fail,E0133
/// use anycuda::core::{GraphBuilder, Kernel, LaunchConfig, Result};
/// fn f(g: &mut GraphBuilder, k: &Kernel) -> Result<()> {
///     g.kernel(&[], &LaunchConfig::new(1u32, 1u32), k, ())?; // FAILS
///     Ok(())
/// }
/// ```
pub struct KernelNodeIsUnsafe;

/// A host function runs on a driver thread: a closure that is not `Send` is refused.
///
/// ```compile_fail,E0277
/// use anycuda::core::{Result, Stream};
/// use std::rc::Rc;
/// fn f(s: &Stream) -> Result<()> {
///     let rc = Rc::new(1);
///     s.launch_host_func(move || drop(rc))?; // FAILS
///     Ok(())
/// }
/// ```
pub struct HostFuncNeedsSend;

/// A host function may run after the caller returns: a closure borrowing a local is refused.
///
/// ```compile_fail,E0597
/// use anycuda::core::{Result, Stream};
/// fn f(s: &Stream) -> Result<()> {
///     let local = vec![1u32];
///     let r = &local;
///     s.launch_host_func(move || println!("{}", r[0]))?; // FAILS
///     Ok(())
/// }
/// ```
pub struct HostFuncNeedsStatic;

/// The repeatable host function may run many times, from driver threads: a `FnOnce` is
/// refused.
///
/// ```compile_fail,E0525
/// use anycuda::core::{Result, Stream};
/// fn f(s: &Stream) -> Result<()> {
///     let v = vec![1u32];
///     let once = move || drop(v);
///     s.launch_host_fn(once)?; // FAILS
///     Ok(())
/// }
/// ```
pub struct HostFnNeedsFn;

/// ... and a closure that is not `Sync` (a graph's launches on two streams may run it at once).
///
/// ```compile_fail,E0277
/// use anycuda::core::{Result, Stream};
/// use std::cell::Cell;
/// fn f(s: &Stream) -> Result<()> {
///     let c = Cell::new(0u32);
///     s.launch_host_fn(move || c.set(c.get() + 1))?; // FAILS
///     Ok(())
/// }
/// ```
pub struct HostFnNeedsSync;

/// A graph host node owns its closure: one borrowing a local is refused.
///
/// ```compile_fail,E0597
/// use anycuda::core::{GraphBuilder, Result};
/// fn f(g: &mut GraphBuilder) -> Result<()> {
///     let local = vec![1u32];
///     let r = &local;
///     g.host(&[], move || println!("{}", r[0]))?; // FAILS
///     Ok(())
/// }
/// ```
pub struct HostNodeNeedsStatic;

/// A graph node's buffer cannot be borrowed mutably by the builder while a view of it is
/// alive.
///
/// ```compile_fail,E0502
/// use anycuda::core::{Buffer, GraphBuilder, Result, Stream};
/// fn f(b: &mut Buffer<u32>, g: &mut GraphBuilder, s: &Stream) -> Result<()> {
///     let v = b.as_view();
///     g.memset(&[], b, 1u32)?; // FAILS
///     println!("{}", v.len());
///     let _ = s;
///     Ok(())
/// }
/// ```
pub struct GraphNodeNeedsExclusiveBuffer;

/// A GEMM's output cannot also be one of its inputs: C is borrowed mutably for the call.
///
/// ```compile_fail,E0502
/// use anycuda::core::{Blas, Buffer, Gemm, Result};
/// fn f(blas: &Blas, a: &Buffer<f32>, c: &mut Buffer<f32>) -> Result<()> {
///     let g = Gemm::new(4, 4, 4);
///     blas.gemm(&g, a, a, c)?;
///     blas.gemm(&g, a, c, c)?; // FAILS
///     Ok(())
/// }
/// ```
pub struct GemmOutputIsNotAnInput;

/// Nor can a view of C's buffer be an input while part of that buffer is the output.
///
/// ```compile_fail,E0502
/// use anycuda::core::{Blas, Buffer, Gemm, Result};
/// fn f(blas: &Blas, a: &Buffer<f32>, c: &mut Buffer<f32>) -> Result<()> {
///     let g = Gemm::new(4, 4, 4);
///     let mut tail = c.view_mut(16..)?;
///     blas.gemm(&g, a, &c.view(..16)?, &mut tail)?; // FAILS
///     blas.gemm(&g, a, a, &mut tail)?;
///     Ok(())
/// }
/// ```
pub struct GemmOutputViewIsExclusive;

/// GEMM's scalars have the element type's scalar type (`f32` for `f32`, `f16` and `bf16`;
/// `f64` for `f64`): a description of another type is refused.
///
/// ```compile_fail,E0308
/// use anycuda::core::{Blas, Buffer, Gemm, Result};
/// fn f(blas: &Blas, a: &Buffer<f32>, c: &mut Buffer<f32>) -> Result<()> {
///     blas.gemm(&Gemm::<f32>::new(4, 4, 4), a, a, c)?;
///     blas.gemm(&Gemm::<f64>::new(4, 4, 4), a, a, c)?; // FAILS
///     Ok(())
/// }
/// ```
pub struct GemmScalarsAreTyped;

/// Only the element types cuBLAS multiplies have a GEMM.
///
/// ```compile_fail,E0277
/// use anycuda::core::{Blas, Buffer, Gemm, Result};
/// fn f(blas: &Blas, a: &Buffer<f32>, c: &mut Buffer<f32>, u: &Buffer<u32>, v: &mut Buffer<u32>) -> Result<()> {
///     blas.gemm(&Gemm::new(4, 4, 4), a, a, c)?;
///     blas.gemm(&Gemm::<f32>::new(4, 4, 4), u, u, v)?; // FAILS
///     Ok(())
/// }
/// ```
pub struct GemmNeedsAGemmType;
